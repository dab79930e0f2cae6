import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/processes.js';

/**
 * The README and docs/ point at each other and at the code: every relative link must name a file
 * that exists, and a `#fragment` a heading of that file, so a renamed document or section is
 * caught here rather than by a reader.
 */
const documents = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  for (const [, heading] of markdown.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    found.add(
      heading!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return found;
}

/** Markdown links and images outside code blocks and code spans. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

describe('links in README.md and docs/', () => {
  it('finds the documents and their links', () => {
    expect(documents).toContain('docs/agents.md');
    expect(links(readFileSync(join(ROOT, 'README.md'), 'utf8')).length).toBeGreaterThan(10);
  });

  for (const document of documents) {
    it(`${document}: every relative link resolves`, () => {
      const markdown = readFileSync(join(ROOT, document), 'utf8');
      const broken: string[] = [];
      for (const link of links(markdown)) {
        if (/^[a-z][a-z+.-]*:/i.test(link) || link.startsWith('//')) continue; // another site
        const [path, fragment] = link.split('#') as [string, string | undefined];
        const target = path ? resolve(dirname(join(ROOT, document)), decodeURI(path)) : join(ROOT, document);
        if (!existsSync(target)) {
          broken.push(`${link} (no such file)`);
          continue;
        }
        if (fragment && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(fragment)) {
          broken.push(`${link} (no such heading)`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});
