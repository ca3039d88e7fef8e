import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Catalogues, definedCatalogues } from '../src/i18n.js';

/**
 * Every message catalogue of the dashboard (each `*-messages.ts` under src/), checked at run time:
 * English has exactly Portuguese's keys (the types force it, but an `as` cast or a record typed
 * `Record<string, string>` would let a key slip), with the same kind of value under each, and no
 * Portuguese text is left identical to its English one, except proper nouns, codes and symbols
 * that read the same in both (the allow-list below).
 */

const srcDir = fileURLToPath(new URL('../src/', import.meta.url));

/** Words that are the same in Portuguese and English: names, legal terms kept in Portuguese, codes. */
const sameInBothLanguages = new Set([
  'Vigia',
  'Brasília',
  'Belém',
  'São Paulo',
  'Distrito Federal',
  'Bandeira I',
  'Bandeira II',
  'OSRM',
  'CSV',
  'PDF',
  'Manual',
  'Total',
  'Status',
  // Each language's name in itself, as a language switch writes it.
  'Português (Brasil)',
  'English',
]);

/** A string with no word of two lower-case letters (codes like "PT", "F2", "N", "Esc", "1–9"), or only symbols. */
function isCodeOrSymbol(text: string): boolean {
  return !/\p{Ll}{2,}/u.test(text) || /^(?:Esc|Enter|Tab|Shift)$/.test(text);
}

type Leaf = { path: string; kind: string; value: unknown };

function leaves(value: unknown, path = ''): Leaf[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => leaves(item, `${path}[${index}]`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => leaves(item, path ? `${path}.${key}` : key));
  }
  return [{ path, kind: typeof value, value }];
}

async function catalogueFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('-messages.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('message catalogues', () => {
  const byFile = new Map<string, Array<Catalogues<unknown>>>();

  beforeAll(async () => {
    // A file's catalogues are those whose texts it exports (defineMessages returns the current
    // language's object): an earlier test file in the same worker may have imported it already.
    for (const file of await catalogueFiles(srcDir)) {
      const exported = new Set<unknown>(Object.values((await import(file)) as Record<string, unknown>));
      byFile.set(
        relative(srcDir, file),
        definedCatalogues.filter((catalogue) => Object.values(catalogue).some((texts) => exported.has(texts))),
      );
    }
  });

  it('finds the catalogues (each file defines at least one)', () => {
    expect(byFile.size).toBeGreaterThanOrEqual(8);
    for (const [file, catalogues] of byFile) expect(catalogues.length, file).toBeGreaterThan(0);
  });

  it('gives English the same keys as Portuguese, with the same kind of value', () => {
    const problems: string[] = [];
    for (const [file, catalogues] of byFile) {
      for (const catalogue of catalogues) {
        const pt = new Map(leaves(catalogue['pt-BR']).map((leaf) => [leaf.path, leaf.kind]));
        const en = new Map(leaves(catalogue.en).map((leaf) => [leaf.path, leaf.kind]));
        for (const [path, kind] of pt) {
          if (!en.has(path)) problems.push(`${file}: ${path} has no English`);
          else if (en.get(path) !== kind)
            problems.push(`${file}: ${path} is a ${kind} in pt-BR, ${en.get(path)} in en`);
        }
        for (const path of en.keys()) if (!pt.has(path)) problems.push(`${file}: ${path} is only in English`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('translates every Portuguese text (identical only for proper nouns, codes and symbols)', () => {
    const untranslated: string[] = [];
    for (const [file, catalogues] of byFile) {
      for (const catalogue of catalogues) {
        const en = new Map(leaves(catalogue.en).map((leaf) => [leaf.path, leaf.value]));
        for (const leaf of leaves(catalogue['pt-BR'])) {
          if (typeof leaf.value !== 'string' || en.get(leaf.path) !== leaf.value) continue;
          if (sameInBothLanguages.has(leaf.value) || isCodeOrSymbol(leaf.value)) continue;
          untranslated.push(`${file}: ${leaf.path} = ${JSON.stringify(leaf.value)}`);
        }
      }
    }
    expect(untranslated).toEqual([]);
  });

  it('translates the texts that functions build, for a sample of arguments', () => {
    // Functions take numbers or strings; the same sample in both languages must not give the same text
    // unless the text is only the arguments (a "plate · distance" row is language-free).
    const untranslated: string[] = [];
    for (const [file, catalogues] of byFile) {
      for (const catalogue of catalogues) {
        const en = new Map(leaves(catalogue.en).map((leaf) => [leaf.path, leaf.value]));
        for (const leaf of leaves(catalogue['pt-BR'])) {
          const english = en.get(leaf.path);
          if (typeof leaf.value !== 'function' || typeof english !== 'function') continue;
          const args = Array.from({ length: leaf.value.length }, (_, index) => (index % 2 === 0 ? 7 : 'X'));
          let pt: unknown;
          let other: unknown;
          try {
            pt = leaf.value(...args);
            other = english(...args);
          } catch {
            continue;
          }
          if (typeof pt !== 'string' || pt !== other) continue;
          // A file name is not prose.
          if (/^[\w.-]+\.(?:csv|pdf|png)$/.test(pt)) continue;
          const words = pt.replace(/\b(?:X|km\/h|km|m|s|min|h|UTC)\b/g, '');
          if (!/\p{Ll}{2,}/u.test(words) || [...sameInBothLanguages].some((noun) => words.includes(noun))) continue;
          untranslated.push(`${file}: ${leaf.path}(…) = ${JSON.stringify(pt)}`);
        }
      }
    }
    expect(untranslated).toEqual([]);
  });
});
