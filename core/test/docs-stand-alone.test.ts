import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A clone of the repository is all a reader has: every document must stand alone. Each relative
 * link in a Markdown file must reach a file of the repository (and, for `#anchor` links into
 * Markdown, a heading of it), and no document may send the reader to the folders beside the
 * repository that the team's own machines have (`../shared/…`).
 */

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const skippedDirs = new Set(['node_modules', 'dist', '.git', 'data', 'coverage']);

function markdownFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (skippedDirs.has(entry)) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...markdownFiles(path));
    else if (entry.endsWith('.md')) found.push(path);
  }
  return found;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading?.[1]) anchors.add(slug(heading[1]));
  }
  return anchors;
}

/** Inline links and images, outside code fences; reference-style links are not used here. */
function linksOf(markdown: string): string[] {
  const withoutFences = markdown.replace(/```[\s\S]*?```/g, '');
  return [...withoutFences.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1] ?? '');
}

const files = markdownFiles(repoRoot);

describe('the documentation stands alone', () => {
  it('finds the documents to check', () => {
    const names = files.map((file) => relative(repoRoot, file));
    expect(names).toContain('README.md');
    expect(names).toContain('rules/README.md');
    expect(names).toContain('api/API.md');
  });

  it.each(files.map((file) => [relative(repoRoot, file), file]))(
    '%s links only to files of the repository',
    (_, file) => {
      const markdown = readFileSync(file, 'utf8');
      const broken: string[] = [];
      for (const link of linksOf(markdown)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto: …
        const [pathPart = '', anchor] = link.split('#');
        const target = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
        if (!target.startsWith(repoRoot) || !existsSync(target)) {
          broken.push(`${link} (no such file in the repository)`);
          continue;
        }
        if (anchor && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
          broken.push(`${link} (no heading with that anchor)`);
        }
      }
      expect(broken).toEqual([]);
    },
  );

  it.each(files.map((file) => [relative(repoRoot, file), file]))(
    '%s names no folder outside the repository',
    (_, file) => {
      const outside = readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => /\.\.\/shared\b|\bshared\/(seeds|data)\b|\b(RULES|DESIGN|STYLE)\.md\b/.test(line));
      expect(outside).toEqual([]);
    },
  );
});
