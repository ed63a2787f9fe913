/**
 * CSV as RFC 4180 reads it, for dataset imports (no CSV parser is among the dependencies):
 * fields separated by commas, a field in double quotes may hold commas, quotes (doubled) and
 * line breaks; rows end in CRLF or LF; a leading byte order mark is dropped; blank lines are
 * skipped. Each row carries the line it starts on, so an error can name it.
 */
export interface CsvRow {
  line: number;
  fields: string[];
}

export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

export function parseCsv(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let line = 1;
  let i = 0;
  while (i < src.length) {
    const start = line;
    const fields: string[] = [];
    let blank = true;
    for (;;) {
      let value = '';
      if (src[i] === '"') {
        blank = false;
        i++;
        for (;;) {
          if (i >= src.length) throw new CsvSyntaxError(start, 'a quoted field is not closed');
          const c = src[i];
          if (c === '"') {
            if (src[i + 1] === '"') {
              value += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          value += c;
          i++;
        }
        if (i < src.length && src[i] !== ',' && src[i] !== '\n' && !(src[i] === '\r' && src[i + 1] === '\n'))
          throw new CsvSyntaxError(line, 'a quoted field must end at a comma or the end of the line');
      } else {
        while (i < src.length && src[i] !== ',' && src[i] !== '\n' && !(src[i] === '\r' && src[i + 1] === '\n')) {
          if (src[i] === '"') throw new CsvSyntaxError(line, 'a quote inside an unquoted field; quote the field and double the quote');
          value += src[i++];
        }
        if (value) blank = false;
      }
      fields.push(value);
      if (src[i] === ',') {
        blank = false;
        i++;
        continue;
      }
      // End of the row: CRLF, LF or the end of the text.
      i += src[i] === '\r' ? 2 : i < src.length ? 1 : 0;
      line++;
      break;
    }
    if (!blank) rows.push({ line: start, fields });
  }
  return rows;
}
