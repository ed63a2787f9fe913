import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fencedBlocks } from './doc-examples';

/**
 * Relative links between the Markdown pages, checked by test/docs-examples.e2e-spec.ts so that
 * moving a section from one page to another cannot leave a link pointing at nothing.
 */

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings (outside fenced blocks). */
export function anchorsOf(markdown: string): Set<string> {
  const fenced = new Set(fencedBlocks(markdown).flatMap((b) => b.text.split('\n')));
  return new Set(
    markdown
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line) && !fenced.has(line))
      .map((line) => anchorOf(line.replace(/^#+ /, ''))),
  );
}

/** Links to a path in the repository (not `http…`, not `mailto:`), with their optional anchor. */
export function relativeLinks(markdown: string): { target: string; anchor: string | null }[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((href) => !/^[a-z]+:/i.test(href))
    .map((href) => {
      const [target, anchor] = href.split('#', 2);
      return { target, anchor: anchor ?? null };
    });
}

/** The links of a page that lead nowhere: a missing file, or an anchor no heading of it has. */
export function brokenLinks(pagePath: string): string[] {
  const markdown = readFileSync(pagePath, 'utf8');
  return relativeLinks(markdown).flatMap(({ target, anchor }) => {
    const file = target === '' ? pagePath : resolve(dirname(pagePath), target);
    if (!existsSync(file)) return [`${target}: no such file`];
    if (anchor === null || !file.endsWith('.md')) return [];
    return anchorsOf(readFileSync(file, 'utf8')).has(anchor) ? [] : [`${target}#${anchor}: no such heading`];
  });
}
