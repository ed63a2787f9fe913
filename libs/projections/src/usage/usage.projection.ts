import type { EntityManager } from 'typeorm';
import { USAGE_SCHEMA, type UsageCounted, parseUsageCounted } from '@app/domain';
import { CONSUMERS, jsonMessage } from '@app/eventlog';
import type { StreamProjection } from '../projection';

/**
 * USAGE into per-organization, per-UTC-month counters (`usage_counters`); each count's id is
 * applied once (`usage_applied`), so a redelivery or a relay's second publish changes nothing.
 * Its events come from the telemetry projection's and the evaluation worker's usage outbox.
 */
export const usageProjection: StreamProjection<UsageCounted> = {
  name: 'usage',
  version: 1,
  tables: ['usage_applied', 'usage_counters'],
  source: { stream: 'usage', consumer: CONSUMERS.usageProjector },
  schemas: [USAGE_SCHEMA],
  decode: jsonMessage(parseUsageCounted),
  prepare: async (events) => events,
  apply: applyUsage,
};

/** Adds each event to its organization's month once: an id seen before changes nothing. */
async function applyUsage(manager: EntityManager, events: UsageCounted[]): Promise<void> {
  if (!events.length) return;
  await manager.query(
    `WITH incoming AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r (id uuid, org_id uuid, month text, metric text, n bigint)
     ), fresh AS (
       INSERT INTO usage_applied (id) SELECT DISTINCT id FROM incoming ON CONFLICT DO NOTHING RETURNING id
     ), sums AS (
       SELECT i.org_id, i.month,
              sum(i.n) FILTER (WHERE i.metric = 'traces') AS traces,
              sum(i.n) FILTER (WHERE i.metric = 'spans') AS spans,
              sum(i.n) FILTER (WHERE i.metric = 'eval_runs') AS eval_runs
         FROM (SELECT DISTINCT ON (id) * FROM incoming) i JOIN fresh f ON f.id = i.id
        GROUP BY i.org_id, i.month
     )
     INSERT INTO usage_counters AS c (org_id, month, traces, spans, eval_runs)
     SELECT org_id, month, coalesce(traces, 0), coalesce(spans, 0), coalesce(eval_runs, 0) FROM sums ORDER BY org_id, month
     ON CONFLICT (org_id, month) DO UPDATE
       SET traces = c.traces + excluded.traces, spans = c.spans + excluded.spans,
           eval_runs = c.eval_runs + excluded.eval_runs, updated_at = now()`,
    [JSON.stringify(events.map((e) => ({ id: e.id, org_id: e.orgId, month: e.month, metric: e.metric, n: e.n })))],
  );
}
