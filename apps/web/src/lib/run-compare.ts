/** What the dashboard reads out of runs of a dataset: score columns, a run's CSV, and which results differ. */
import type { JsonValue } from '@app/domain/json/types';
import type { RunItemResult, RunScore } from '@app/domain/datasets/run-results';
import { type CsvCell, toCsv } from './csv';

/** A result's scores, or a run's score means (each mean a value). */
interface Scored {
  scores: Pick<RunScore, 'name' | 'value'>[];
}
/** A run item's result as the dashboard has it (the list answers leave out when it was linked). */
type RunItemLike = Omit<RunItemResult, 'createdAt'>;

/** Score names in first-seen order over the given lists. */
export function scoreNames(lists: { name: string }[][]): string[] {
  return [...new Set(lists.flat().map((s) => s.name))];
}

/** A score's value as a number to compare: numbers as they are, booleans as 1 and 0; categories are not ranked. */
export function scoreNumber(value: RunScore['value'] | undefined): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return null;
}

/**
 * Per score name, the indexes of the results holding the best (highest) value, when at least two
 * results have the score and they do not all agree: a tie of every run marks none.
 */
export function bestScores(results: (Scored | null)[]): Map<string, Set<number>> {
  const best = new Map<string, Set<number>>();
  for (const name of scoreNames(results.map((r) => r?.scores ?? []))) {
    const values = results.map((r) => scoreNumber(r?.scores.find((s) => s.name === name)?.value));
    const present = values.filter((v): v is number => v !== null);
    if (present.length < 2) continue;
    const top = Math.max(...present);
    if (present.every((v) => v === top)) continue;
    best.set(name, new Set(values.flatMap((v, i) => (v === top ? [i] : []))));
  }
  return best;
}

const asText = (value: JsonValue | null | undefined): string =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/** Whether the runs that answered the item gave different outputs. */
export function outputsDiffer(results: ({ output: JsonValue | null } | null)[]): boolean {
  const outputs = results.filter((r) => r !== null).map((r) => asText(r.output));
  return new Set(outputs).size > 1;
}

/** A run's items as CSV: one row per item, JSON values as JSON text, one column per score. */
export function runCsv(items: RunItemLike[]): string {
  const names = scoreNames(items.map((i) => i.scores));
  const header = [
    'datasetItemId',
    'traceId',
    'spanId',
    'input',
    'expectedOutput',
    'output',
    'latencyMs',
    'totalTokens',
    'totalCost',
    ...names,
  ];
  const rows = items.map((item): CsvCell[] => [
    item.datasetItemId,
    item.traceId,
    item.spanId,
    asText(item.input),
    asText(item.expectedOutput),
    asText(item.output),
    item.latencyMs,
    item.totalTokens,
    item.totalCost,
    ...names.map((name) => item.scores.find((s) => s.name === name)?.value),
  ]);
  return toCsv(header, rows);
}
