import type { EntityManager } from 'typeorm';
import { PRICED_FIELDS, type PriceLookup, type SpanFields, type Version, computedCost } from '@app/domain';
import { SPAN_FIELD_COLUMNS } from './tables/columns';
import { type StoredVersions, storedVersionOf } from './tables/stored-versions';

/**
 * A span row priced from what it holds: the one rule by which a recomputation (`recomputeCostStep`)
 * and the projection (`priceMergedSpans`) cost a row whose model and usage were merged from
 * several messages, with the function that prices a message (`computedCost`), and the one
 * statement that writes the result.
 */

/** The columns pricing sets, from the one list of priced fields: a field added there is priced here too. */
export const PRICED_COLUMNS = SPAN_FIELD_COLUMNS.filter((c) => (PRICED_FIELDS as readonly string[]).includes(c.field));

/** What a row is priced from and what it holds of the priced columns. */
export const PRICED_ROW_COLUMNS = `project_id, id, model, start_time, usage_details, versions, ${PRICED_COLUMNS.map((c) => c.column).join(', ')}`;

export interface PricedRow {
  project_id: string;
  id: string;
  model: string | null;
  start_time: Date | null;
  usage_details: Record<string, number> | null;
  versions: StoredVersions;
  [column: string]: unknown;
}

/** A row's priced columns and their versions as `table` prices it now; null when they are what the row holds. */
export function repriced(row: PricedRow, table: PriceLookup): Record<string, unknown> | null {
  // A client's cost (or one stored before costs had a source) always wins.
  if (row.cost !== null && (row.cost_source === null || row.cost_source === 'client')) return null;
  const usageVersion = storedVersionOf(row.versions, 'usageDetails', row.usage_details !== null);
  const computed = computedCost(
    {
      values: { model: row.model ?? undefined, startTime: row.start_time?.toISOString(), usageDetails: row.usage_details ?? undefined },
      versions: usageVersion === undefined ? {} : { usageDetails: usageVersion },
    },
    table,
  );
  const values = computed?.values as Partial<SpanFields> | undefined;
  const next: Record<string, unknown> = { project_id: row.project_id, id: row.id, versions: {} };
  let same = true;
  for (const { field, column } of PRICED_COLUMNS) {
    const value = values?.[field] ?? null;
    // A field the table leaves empty has no version, as when a message is priced (`priceSpan`).
    const version: Version | null = value === null ? null : (computed?.version ?? null);
    next[column] = value;
    (next.versions as Record<string, Version | null>)[field] = version;
    same &&= sameJson(row[column], value) && (storedVersionOf(row.versions, field, row[column] !== null) ?? null) === version;
  }
  return same ? null : next;
}

/** Equal as stored: jsonb orders an object's keys its own way. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return (
    ka.length === kb.length &&
    ka.every((k, i) => k === kb[i] && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/** Writes rows `repriced` gave, their priced columns and those columns' versions, in the caller's transaction. */
export async function writeCosts(m: EntityManager, rows: Record<string, unknown>[]): Promise<void> {
  await m.query(
    `UPDATE spans s SET ${PRICED_COLUMNS.map((c) => `${c.column} = r.${c.column}`).join(', ')}, versions = s.versions || r.versions
       FROM jsonb_to_recordset($1::jsonb) AS r (project_id uuid, id uuid, ${PRICED_COLUMNS.map((c) => `${c.column} ${c.type}`).join(', ')}, versions jsonb)
      WHERE s.project_id = r.project_id AND s.id = r.id`,
    [JSON.stringify(rows)],
  );
}
