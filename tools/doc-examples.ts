/**
 * The runnable examples of the documentation (README.md and docs/*.md), read for
 * test/docs-examples.e2e-spec.ts. The convention, stated in README.md ("The examples are tested"):
 *
 * - every fenced block tagged `sh` is runnable: its commands run in order, in one bash per page;
 * - a comment line `# → …` under a command is what that command must print: an HTTP status
 *   (from `curl -i`) and/or a JSON value the output must contain (see `matchJson`), or else text
 *   the output must contain;
 * - a comment line starting with `#` and two spaces or more continues the expectation above it.
 */

export interface DocExample {
  /** Where the command starts: `docs/reading.md:42`. */
  where: string;
  /** The command as written, continuation lines and multi-line quotes included. */
  command: string;
  expected: Expectation | null;
}

export interface Expectation {
  /** The HTTP status the command's `curl -i` output must start with. */
  status: number | null;
  /** What the body (or the whole output) must contain; empty when only the status is stated. */
  body: string;
}

export interface FencedBlock {
  /** The line of the block's first content line, 1-based. */
  line: number;
  text: string;
}

const EXPECTATION = /^#\s*→\s?(.*)$/;
const CONTINUATION = /^# {2,}(.*)$/;
/** An elided value in an expectation: `"…"` is any value, `"v1.…"` any string starting with `v1.`. */
export const ELLIPSIS = '…';

/** The `sh` fenced blocks of a Markdown text, in order. */
export function runnableBlocks(markdown: string): FencedBlock[] {
  return fencedBlocks(markdown)
    .filter((b) => b.info === 'sh')
    .map(({ line, text }) => ({ line, text }));
}

/** Every fenced block with its info string (the word after the backticks). */
export function fencedBlocks(markdown: string): (FencedBlock & { info: string })[] {
  const blocks: (FencedBlock & { info: string })[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].startsWith(open[1])) body.push(lines[j++]);
    blocks.push({ line: i + 2, info: open[2].trim().split(/\s+/)[0] ?? '', text: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** Splits a block into its commands, each with the expectation written under it. */
export function parseExamples(text: string, file: string, firstLine: number): DocExample[] {
  const examples: DocExample[] = [];
  const lines = text.split('\n');
  let current: { start: number; lines: string[] } | null = null;
  let expecting: DocExample | null = null;
  for (const [i, line] of lines.entries()) {
    if (current) {
      current.lines.push(line);
      if (commandEnds(current.lines.join('\n'))) {
        expecting = { where: `${file}:${firstLine + current.start}`, command: current.lines.join('\n'), expected: null };
        examples.push(expecting);
        current = null;
      }
      continue;
    }
    const trimmed = line.trim();
    const expectation = EXPECTATION.exec(trimmed);
    const continuation = CONTINUATION.exec(trimmed);
    if (expectation) {
      if (!expecting) throw new Error(`${file}:${firstLine + i}: an expectation with no command above it`);
      expecting.expected = appendExpectation(expecting.expected, expectation[1]);
    } else if (continuation && expecting?.expected) {
      expecting.expected = { ...expecting.expected, body: `${expecting.expected.body} ${continuation[1].trim()}`.trim() };
    } else if (trimmed === '' || trimmed.startsWith('#')) {
      expecting = null;
    } else {
      current = { start: i, lines: [line] };
      if (commandEnds(line)) {
        expecting = { where: `${file}:${firstLine + i}`, command: line, expected: null };
        examples.push(expecting);
        current = null;
      }
    }
  }
  if (current) throw new Error(`${file}:${firstLine + current.start}: a command that does not end (an open quote or a trailing backslash)`);
  return examples;
}

function appendExpectation(previous: Expectation | null, text: string): Expectation {
  if (previous) return { ...previous, body: `${previous.body} ${text.trim()}`.trim() };
  const status = /^(\d{3})(?:\s+|$)(.*)$/.exec(text.trim());
  return status ? { status: Number(status[1]), body: status[2].trim() } : { status: null, body: text.trim() };
}

/**
 * Whether shell text is a whole command: no quote left open, no trailing backslash. A `#`
 * starting a word outside quotes comments out the rest of its line (so an apostrophe there
 * opens nothing).
 */
export function commandEnds(text: string): boolean {
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = null;
    } else if (c === '\\') {
      if (i === text.length - 1) return false;
      i++;
    } else if (quote === '"') {
      if (c === '"') quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]))) {
      const end = text.indexOf('\n', i);
      if (end === -1) return true;
      i = end;
    }
  }
  return quote === null;
}

/** `curl -i` output: the status of the last response head and the body after it. */
export function splitHttpOutput(output: string): { status: number; body: string } | null {
  let rest = output.replace(/\r\n/g, '\n');
  let status: number | null = null;
  for (;;) {
    const head = /^HTTP\/[\d.]+ (\d{3})[^\n]*\n(?:[^\n]+\n)*\n/.exec(rest);
    if (!head) break;
    status = Number(head[1]);
    rest = rest.slice(head[0].length);
  }
  return status === null ? null : { status, body: rest };
}

/**
 * The expectation's text as JSON, with the doc's elisions turned into `"…"`: `[…]` and `{…}`
 * stand for any array or object. Null when it is not JSON (then it is text to find).
 */
export function expectedJson(body: string): unknown {
  const text = body.replace(/\[…\]|\{…\}/g, `"${ELLIPSIS}"`);
  if (!/^[[{]/.test(text)) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * Where `actual` differs from `expected`, as `path: …` lines; none when it matches. An object
 * matches when every key it shows matches (others may be there); an array when it has as many
 * elements, each matching (a last element `"…"` allows more); `"…"` matches any value and
 * `"abc…"` any string starting with `abc`; anything else must be equal.
 */
export function matchJson(expected: unknown, actual: unknown, path = '$'): string[] {
  if (typeof expected === 'string' && expected.endsWith(ELLIPSIS)) {
    const prefix = expected.slice(0, -ELLIPSIS.length);
    if (prefix === '' || (typeof actual === 'string' && actual.startsWith(prefix))) return [];
    return [`${path}: expected a string starting with ${JSON.stringify(prefix)}, got ${show(actual)}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${show(actual)}`];
    const open = expected.length > 0 && expected[expected.length - 1] === ELLIPSIS;
    const shown = open ? expected.slice(0, -1) : expected;
    if (open ? actual.length < shown.length : actual.length !== shown.length) {
      return [`${path}: expected ${open ? 'at least ' : ''}${shown.length} elements, got ${actual.length}: ${show(actual)}`];
    }
    return shown.flatMap((e, i) => matchJson(e, actual[i], `${path}[${i}]`));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: expected an object, got ${show(actual)}`];
    const record = actual as Record<string, unknown>;
    return Object.entries(expected).flatMap(([key, value]) =>
      key in record ? matchJson(value, record[key], `${path}.${key}`) : [`${path}.${key}: missing in ${show(actual)}`],
    );
  }
  return Object.is(expected, actual) ? [] : [`${path}: expected ${show(expected)}, got ${show(actual)}`];
}

/** Where a command's output differs from its expectation, as lines; none when it matches. */
export function checkOutput(expected: Expectation, output: string): string[] {
  let body = output;
  if (expected.status !== null) {
    const http = splitHttpOutput(output);
    if (!http) return [`expected an HTTP ${expected.status} answer (curl -i), got ${cut(output)}`];
    if (http.status !== expected.status) return [`expected HTTP ${expected.status}, got ${http.status}: ${cut(http.body)}`];
    body = http.body;
  }
  if (expected.body === '') return [];
  const json = expectedJson(expected.body);
  if (json !== null) {
    let actual: unknown;
    try {
      actual = JSON.parse(body);
    } catch {
      return [`expected JSON like ${expected.body}, got ${cut(body)}`];
    }
    return matchJson(json, actual);
  }
  const squeeze = (s: string) => s.replace(/\s+/g, ' ').trim();
  return squeeze(body).includes(squeeze(expected.body)) ? [] : [`expected the output to contain ${expected.body}, got ${cut(body)}`];
}

const cut = (text: string): string => (text.length > 600 ? `${text.slice(0, 600)}…` : text);
/** A value of a JSON comparison, as JSON. */
const show = (value: unknown): string => cut(JSON.stringify(value) ?? 'nothing');
