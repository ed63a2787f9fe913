/** The score config form's fields as the RPC takes them. Pure. */

export const SCORE_DATA_TYPES = ['NUMERIC', 'CATEGORICAL', 'BOOLEAN'] as const;

export interface ScoreConfigFormValues {
  name: string;
  dataType: string;
  minValue: string;
  maxValue: string;
  /** One category a line, as `label = value`. */
  categories: string;
  description: string;
}

/** Categories one a line, `label = value`; a line without `=` reads as a label with no number, which the server names. */
export const categoriesText = (categories: { label: string; value: number }[]) =>
  categories.map((c) => `${c.label} = ${c.value}`).join('\n');

/**
 * A blank bound or description is sent as null (none, or cleared on an edit); numbers and
 * categories are sent as typed, so the server's rules (which live there alone) decide and name
 * the field. Categories go only with a CATEGORICAL config, bounds only with a NUMERIC one.
 */
export function toScoreConfigInput(v: ScoreConfigFormValues) {
  const num = (s: string) => (s.trim() === '' ? null : Number(s));
  const categories = v.categories
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const at = line.lastIndexOf('=');
      return at < 0 ? { label: line } : { label: line.slice(0, at).trim(), value: num(line.slice(at + 1)) };
    });
  return {
    name: v.name,
    dataType: v.dataType as (typeof SCORE_DATA_TYPES)[number],
    ...(v.dataType === 'NUMERIC' && { minValue: num(v.minValue), maxValue: num(v.maxValue) }),
    ...(v.dataType === 'CATEGORICAL' && { categories: categories as { label: string; value: number }[] }),
    description: v.description.trim() === '' ? null : v.description,
  };
}
