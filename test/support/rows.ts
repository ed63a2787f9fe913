import { randomUUID } from 'node:crypto';
import { eventually } from './api';
import { smallBatch } from './factories';
import { NATIVE_TRACES, ingest, traceStatus } from './ingest';
import type { Stack } from './stack';

/** What the processor has stored, read straight from the database. */

export interface Usage {
  traces: number;
  spans: number;
}

/** The traces and spans counted for an organization, over all months or in one (`YYYY-MM`); 0 where nothing is. */
export async function usageOf(stack: Stack, orgId: string, month?: string): Promise<Usage> {
  const inMonth = month === undefined ? '' : 'AND month = $2';
  const { rows } = await stack.db.query(
    `SELECT coalesce(sum(traces), 0)::int AS traces, coalesce(sum(spans), 0)::int AS spans FROM usage_counters WHERE org_id = $1 ${inMonth}`,
    month === undefined ? [orgId] : [orgId, month],
  );
  return rows[0] as Usage;
}

/** Usage once both metrics have counted `n`: traces and spans are usage messages of their own, so either may be counted first. */
export const usageReaching = (stack: Stack, orgId: string, n: number): Promise<Usage> =>
  eventually(
    () => usageOf(stack, orgId),
    (u) => u.spans >= n && u.traces >= n,
  );

/**
 * Usage once everything queued so far is counted: usage is relayed in order, so once a request
 * sent now is counted (its trace and its span: each metric is a message of its own), anything
 * queued before it is counted too. That request's own trace and span are left out.
 */
export async function settledUsage(stack: Stack, tenant: { apiKey: string; orgId: string }): Promise<Usage> {
  const before = await usageOf(stack, tenant.orgId);
  const traceId = `settle-${randomUUID()}`;
  expect(await traceStatus(stack, tenant.apiKey, traceId, await ingest(stack, tenant.apiKey, NATIVE_TRACES, smallBatch(traceId)))).toBe(
    200,
  );
  const after = await eventually(
    () => usageOf(stack, tenant.orgId),
    (u) => u.spans >= before.spans + 1 && u.traces >= before.traces + 1,
  );
  return { traces: after.traces - 1, spans: after.spans - 1 };
}

/** Every row of the telemetry tables, whole, of one project or of all, in a stable order. */
export async function telemetryRows(stack: Stack, projectId?: string): Promise<{ traces: any[]; spans: any[]; scores: any[] }> {
  const rows = async (table: string) => {
    const where = projectId === undefined ? '' : 'WHERE project_id = $1';
    const { rows } = await stack.db.query(
      `SELECT to_jsonb(t) AS row FROM ${table} t ${where} ORDER BY project_id, id`,
      projectId === undefined ? [] : [projectId],
    );
    return rows.map((r) => r.row);
  };
  return { traces: await rows('traces'), spans: await rows('spans'), scores: await rows('scores') };
}
