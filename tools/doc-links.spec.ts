import fc from 'fast-check';
import { anchorOf, anchorsOf, relativeLinks } from './doc-links';

describe('doc links', () => {
  it("makes GitHub's anchors of headings", () => {
    expect(anchorOf('Why is my span empty? `explain`')).toBe('why-is-my-span-empty-explain');
    expect(anchorOf('Configuration (environment)')).toBe('configuration-environment');
    expect(anchorOf('Reading a trace: pages of spans')).toBe('reading-a-trace-pages-of-spans');
    expect(anchorOf('Rate limits, usage, quotas and retention')).toBe('rate-limits-usage-quotas-and-retention');
  });

  it('gives anchors that are their own anchor, made of letters, digits, _ and -', () => {
    fc.assert(
      fc.property(fc.string(), (heading) => {
        const anchor = anchorOf(heading);
        expect(anchorOf(anchor)).toBe(anchor);
        expect(anchor).toMatch(/^[\p{L}\p{N}_-]*$/u);
      }),
    );
  });

  it('reads the headings outside fenced blocks and the links to the repository', () => {
    const page = [
      '# Title',
      '```sh',
      '# → not a heading',
      '```',
      '## Sub part',
      '[a](ingestion.md#trace-and-span-ids) [b](#sub-part) [c](https://x.io/#y) ![d](shot.png)',
    ].join('\n');
    expect([...anchorsOf(page)]).toEqual(['title', 'sub-part']);
    expect(relativeLinks(page)).toEqual([
      { target: 'ingestion.md', anchor: 'trace-and-span-ids' },
      { target: '', anchor: 'sub-part' },
      { target: 'shot.png', anchor: null },
    ]);
  });
});
