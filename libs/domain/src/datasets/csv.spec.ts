import fc from 'fast-check';
import { CsvSyntaxError, parseCsv } from './csv';

/** RFC 4180's writer: a field quoted when it must be (`always`: every field), quotes doubled. */
const write = (rows: string[][], eol: string, always: boolean) =>
  rows.map((row) => row.map((f) => (always || /[",\r\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f)).join(',')).join(eol) + eol;

const field = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ',', '"', '\n', '\r\n', 'é', '{', '}') });
const rows = fc.array(fc.array(field, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 8 });

describe('parseCsv', () => {
  it('reads back any rows as an RFC 4180 writer writes them, quoting every field, with CRLF or LF', () => {
    fc.assert(
      fc.property(rows, fc.constantFrom('\r\n', '\n'), (written, eol) => {
        expect(parseCsv(write(written, eol, true)).map((r) => r.fields)).toEqual(written);
      }),
    );
  });

  it('reads back rows quoted only where needed; a row of one empty field is a blank line, skipped', () => {
    fc.assert(
      fc.property(rows, (written) => {
        const kept = written.filter((r) => !(r.length === 1 && r[0] === ''));
        expect(parseCsv(write(written, '\r\n', false)).map((r) => r.fields)).toEqual(kept);
      }),
    );
  });

  it('names the line each row starts on, counting the line breaks inside quoted fields', () => {
    fc.assert(
      fc.property(rows, (written) => {
        const parsed = parseCsv(write(written, '\n', true));
        let line = 1;
        written.forEach((row, i) => {
          expect(parsed[i].line).toBe(line);
          line += 1 + row.join('').split('\n').length - 1;
        });
      }),
    );
  });

  it('drops a byte order mark, and reads a last row without a line break', () => {
    expect(parseCsv('\uFEFFinput,metadata\r\nx,"{""a"":1}"')).toEqual([
      { line: 1, fields: ['input', 'metadata'] },
      { line: 2, fields: ['x', '{"a":1}'] },
    ]);
  });

  it.each([
    ['a,"unclosed\nb', 1, 'a quoted field is not closed'],
    ['a\n"x"y,b', 2, 'a quoted field must end at a comma or the end of the line'],
    ['a\nb"c', 2, 'a quote inside an unquoted field'],
  ])('refuses %j at line %i', (text, line, message) => {
    const err = (() => {
      try {
        parseCsv(text);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(CsvSyntaxError);
    expect(err).toMatchObject({ line });
    expect((err as Error).message).toContain(message);
  });
});
