import fc from 'fast-check';
import {
  ELLIPSIS,
  checkOutput,
  commandEnds,
  expectedJson,
  fencedBlocks,
  matchJson,
  parseExamples,
  runnableBlocks,
  splitHttpOutput,
} from './doc-examples';

describe('doc examples', () => {
  describe(runnableBlocks.name, () => {
    it('takes the sh blocks and leaves the others', () => {
      const markdown = ['# Title', '```sh', 'curl -s a', '```', 'text', '```text', 'spanlog <id>', '```', '````sh', '```', '````'].join(
        '\n',
      );
      expect(runnableBlocks(markdown)).toEqual([
        { line: 3, text: 'curl -s a' },
        { line: 10, text: '```' },
      ]);
      expect(fencedBlocks(markdown).map((b) => b.info)).toEqual(['sh', 'text', 'sh']);
    });
  });

  describe(parseExamples.name, () => {
    it('reads each command with the expectation under it', () => {
      const block = [
        "KEY=x   # a comment with an apostrophe: the key's value",
        'curl -s -i -X POST url -d \'{"a":',
        "  1}' \\",
        '  -H x',
        '# → 201 {"accepted":2,',
        '#    "errors":[]}',
        '# a remark, not part of it',
        'spanlog traces list',
        '# → trace-1',
      ].join('\n');
      expect(parseExamples(block, 'docs/x.md', 10)).toEqual([
        { where: 'docs/x.md:10', command: "KEY=x   # a comment with an apostrophe: the key's value", expected: null },
        {
          where: 'docs/x.md:11',
          command: 'curl -s -i -X POST url -d \'{"a":\n  1}\' \\\n  -H x',
          expected: { status: 201, body: '{"accepted":2, "errors":[]}' },
        },
        { where: 'docs/x.md:17', command: 'spanlog traces list', expected: { status: null, body: 'trace-1' } },
      ]);
    });

    it('refuses an expectation with no command and a command left open', () => {
      expect(() => parseExamples('# → 200', 'a.md', 1)).toThrow('a.md:1: an expectation with no command above it');
      expect(() => parseExamples("curl 'open", 'a.md', 5)).toThrow('a.md:5: a command that does not end');
    });

    it('gives back any sequence of commands, however they are quoted and continued', () => {
      const word = fc.oneof(
        fc.stringMatching(/^[a-z0-9=./$-]{1,8}$/),
        fc.stringMatching(/^[a-z #"\n\\]{0,12}$/).map((s) => `'${s}'`),
        fc.stringMatching(/^[a-z #'\n]{0,12}$/).map((s) => `"${s}"`),
      );
      const command = fc
        .tuple(fc.stringMatching(/^[a-z]{1,6}$/), fc.array(fc.tuple(word, fc.boolean()), { maxLength: 5 }))
        .map(([name, words]) => [name, ...words.map(([w, breakBefore]) => (breakBefore ? `\\\n  ${w}` : w))].join(' '));
      fc.assert(
        fc.property(fc.array(command, { minLength: 1, maxLength: 6 }), (commands) => {
          const parsed = parseExamples(commands.join('\n'), 'a.md', 1);
          expect(parsed.map((e) => e.command)).toEqual(commands);
          expect(commands.every((c) => commandEnds(c))).toBe(true);
        }),
      );
    });
  });

  describe(matchJson.name, () => {
    const json = fc.jsonValue();

    it('matches any value against itself', () => {
      fc.assert(fc.property(json, (value) => expect(matchJson(value, value)).toEqual([])));
    });

    it('matches an object against any of its parts, and "…" against anything', () => {
      fc.assert(
        fc.property(fc.dictionary(fc.string(), json), fc.func(fc.boolean()), json, (object, keep, anything) => {
          const part = Object.fromEntries(Object.entries(object).filter(([key]) => keep(key)));
          expect(matchJson(part, object)).toEqual([]);
          expect(matchJson(ELLIPSIS, anything)).toEqual([]);
          expect(matchJson([...Object.values(object), ELLIPSIS], [...Object.values(object), anything])).toEqual([]);
        }),
      );
    });

    it('names the path of a difference', () => {
      fc.assert(
        fc.property(fc.string(), fc.integer(), (key, n) => {
          expect(matchJson({ data: [{ [key]: n }] }, { data: [{ [key]: n + 1 }] })).toEqual([
            `$.data[0].${key}: expected ${n}, got ${n + 1}`,
          ]);
        }),
      );
      expect(matchJson({ errors: [] }, { errors: ['x'] })).toEqual(['$.errors: expected 0 elements, got 1: ["x"]']);
      expect(matchJson({ seq: 'v1.…' }, { seq: 'v2.x' })).toEqual(['$.seq: expected a string starting with "v1.", got "v2.x"']);
      expect(matchJson({ a: 1 }, {})).toEqual(['$.a: missing in {}']);
    });
  });

  describe(checkOutput.name, () => {
    const http = (status: number, body: string) =>
      `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\nspanlog-seq: v1.a\r\n\r\n${body}`;

    it('checks the status of curl -i and the JSON body, with the doc elisions', () => {
      expect(splitHttpOutput(`HTTP/1.1 100 Continue\r\n\r\n${http(201, '{}')}`)).toEqual({ status: 201, body: '{}' });
      expect(expectedJson('{"template":[…],"config":{…}}')).toEqual({ template: ELLIPSIS, config: ELLIPSIS });
      expect(checkOutput({ status: 201, body: '{"accepted":2,"template":[…]}' }, http(201, '{"accepted":2,"template":[1],"x":0}'))).toEqual(
        [],
      );
      expect(checkOutput({ status: 201, body: '' }, http(400, '{"error":{}}'))).toEqual(['expected HTTP 201, got 400: {"error":{}}']);
      expect(checkOutput({ status: 200, body: '' }, '{}')).toEqual(['expected an HTTP 200 answer (curl -i), got {}']);
    });

    it('finds text in the output, whatever its spacing', () => {
      expect(checkOutput({ status: null, body: 'trace-1 hello' }, 'time  trace-1\n   hello\n')).toEqual([]);
      expect(checkOutput({ status: null, body: 'absent' }, 'present')).toEqual(['expected the output to contain absent, got present']);
    });
  });
});
