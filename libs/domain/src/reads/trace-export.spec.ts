import { EXPORT_CSV_COLUMNS, exportCsvRow, exportIncludes } from './trace-export';

describe('trace export', () => {
  it('reads include as a comma-separated list of spans and scores only', () => {
    const read = (v: unknown) => exportIncludes.read?.(v);
    expect(read('spans,scores')).toEqual(['spans', 'scores']);
    expect(exportIncludes.test?.(read('spans, scores'), {})).toBe(true);
    expect(exportIncludes.test?.(read('spans,events'), {})).toBe(false);
    expect(exportIncludes.test?.(read(''), {})).toBe(false);
  });

  it('puts each field in its fixed column: text as is, numbers as text, objects as JSON, null empty', () => {
    const row = exportCsvRow('span', { id: 's1', name: 'a "b"\nc', totalTokens: 12, input: { q: 'é' }, output: null });
    expect(row).toHaveLength(EXPORT_CSV_COLUMNS.length);
    const at = (column: (typeof EXPORT_CSV_COLUMNS)[number]) => row[EXPORT_CSV_COLUMNS.indexOf(column)];
    expect([at('record'), at('id'), at('name'), at('totalTokens'), at('input'), at('output'), at('model')]).toEqual([
      'span',
      's1',
      'a "b"\nc',
      '12',
      '{"q":"é"}',
      '',
      '',
    ]);
  });
});
