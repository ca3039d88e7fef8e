import { defineConfig } from 'vitest/config';
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * The suites that take a minute or more (measured on a clean `.ci/run`). A clean clone has no
 * timing cache, so vitest would order files by size and could start a four-minute suite last,
 * leaving one worker busy alone at the end: these start first, longest first.
 */
const slowSuites = [
  'devices/test/scenarios.test.ts',
  'dashboard/test/basemap.browser.test.ts',
  'devices/test/precision.test.ts',
  'api/test/alerts-faults.test.ts',
  'api/test/dispatch-demo.test.ts',
  'dashboard/test/violations.browser.test.ts',
  'devices/test/late-scenarios.test.ts',
  'dashboard/test/catalogue.browser.test.ts',
  'api/test/demo-coverage.test.ts',
  'dashboard/test/dispatch-console.browser.test.ts',
  'api/test/import-limits.test.ts',
  'ingest/test/gateways/parsers-fuzz.test.ts',
];

class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = slowSuites.findIndex((suite) => file.moduleId.endsWith(suite));
      return index === -1 ? slowSuites.length : index;
    };
    return sorted
      .map((file, order) => ({ file, order }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.order - b.order)
      .map(({ file }) => file);
  }
}

export default defineConfig({
  resolve: { conditions: ['development'] },
  ssr: { resolve: { conditions: ['development'], externalConditions: ['development'] } },
  test: {
    include: ['*/test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Three on two cores: the suites spend much of their time waiting on servers, browsers and
    // timers (a clean run used 1.35 cores on average with two workers).
    maxWorkers: 3,
    // A worker keeps its module cache from one file to the next: importing the system afresh for
    // each of ~150 files cost 510 s of CPU in a clean run (a quarter of the test time on two
    // cores). No test relies on fresh module state: they start their own systems and close them.
    isolate: false,
    sequence: { sequencer: SlowFirstSequencer },
  },
});
