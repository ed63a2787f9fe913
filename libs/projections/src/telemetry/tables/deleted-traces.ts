import type { EntityManager } from 'typeorm';
import type { TelemetryFacts } from '@app/domain';

const keyOf = (projectId: string, traceId: string) => `${projectId} ${traceId}`;

/** The traces a batch's rows belong to, as the tombstone look-up asks for them. */
export interface MentionedTraces {
  /** Per asked id, the trace whose rows a tombstone under that id removes. */
  keys: string[];
  projectIds: string[];
  traceIds: string[];
  /** Per asked id, that trace's id: another than the asked one for a legacy id. */
  deletedIds: string[];
}

export function mentionedTraces(facts: TelemetryFacts): MentionedTraces {
  // Asked id → the trace a tombstone under it deletes: itself, or for a legacy id the trace that had it.
  const mentioned = new Map<string, { projectId: string; traceId: string; of: string }>();
  const mention = (projectId: string, traceId: string | undefined, of = traceId) => {
    if (traceId === undefined) return;
    const key = keyOf(projectId, traceId);
    // Every span of a trace mentions it again: the same mention (the key holds the project and trace) changes nothing.
    if (mentioned.get(key)?.of === of) return;
    mentioned.set(key, { projectId, traceId, of: of as string });
  };
  for (const t of facts.traces) {
    mention(t.projectId, t.id);
    for (const legacy of t.legacyIds ?? []) mention(t.projectId, legacy, t.id);
  }
  for (const s of facts.spans) mention(s.projectId, s.values.traceId);
  for (const s of facts.scores) mention(s.projectId, s.values.traceId);
  for (const r of facts.runItems) mention(r.projectId, r.traceId);
  const asked = [...mentioned.values()];
  return {
    keys: asked.map((a) => keyOf(a.projectId, a.of)),
    projectIds: asked.map((a) => a.projectId),
    traceIds: asked.map((a) => a.traceId),
    deletedIds: asked.map((a) => a.of),
  };
}

/**
 * The facts without the rows of tombstoned traces, which must never be written again; the
 * same object when there are none. One query for the batch's traces (a tombstone is rare,
 * so it usually finds none) instead of a look-up per row in the upserts. Call after the
 * batch's own deletions, in its transaction.
 */
export async function withoutDeletedTraces(
  manager: EntityManager,
  facts: TelemetryFacts,
  mentioned: MentionedTraces = mentionedTraces(facts),
): Promise<TelemetryFacts> {
  if (!mentioned.keys.length) return facts;
  // Positions come back rather than ids, so the match is Postgres's uuid equality whatever the text's case.
  const found: { n: number }[] = await manager.query(
    `SELECT r.n::int AS n FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS r (project_id, id, n)
      WHERE EXISTS (SELECT 1 FROM deleted_traces d WHERE d.project_id = r.project_id AND d.id = r.id)`,
    [mentioned.projectIds, mentioned.traceIds],
  );
  if (!found.length) return facts;
  await tombstoneUnderNewIds(
    manager,
    found.map(({ n }) => n - 1).filter((i) => mentioned.deletedIds[i] !== mentioned.traceIds[i]),
    mentioned,
  );

  const deleted = new Set(found.map(({ n }) => mentioned.keys[n - 1]));
  const live = (projectId: string, traceId: string | undefined) => traceId === undefined || !deleted.has(keyOf(projectId, traceId));
  return {
    ...facts,
    traces: facts.traces.filter((t) => live(t.projectId, t.id)),
    spans: facts.spans.filter((s) => live(s.projectId, s.values.traceId)),
    scores: facts.scores.filter((s) => live(s.projectId, s.values.traceId)),
    runItems: facts.runItems.filter((r) => live(r.projectId, r.traceId)),
  };
}

/**
 * A trace found deleted under an older id (`legacyIds`) gets a tombstone under its id as well,
 * as deleted when that one was: from then on it is a tombstone like any other, for this check,
 * `spanlog verify` and every later reader.
 */
async function tombstoneUnderNewIds(manager: EntityManager, positions: number[], mentioned: MentionedTraces): Promise<void> {
  if (!positions.length) return;
  await manager.query(
    `INSERT INTO deleted_traces (project_id, id, deleted_at)
     SELECT r.project_id, r.id, d.deleted_at FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) AS r (project_id, id, legacy_id)
       JOIN deleted_traces d ON d.project_id = r.project_id AND d.id = r.legacy_id
     ON CONFLICT DO NOTHING`,
    [
      positions.map((i) => mentioned.projectIds[i]),
      positions.map((i) => mentioned.deletedIds[i]),
      positions.map((i) => mentioned.traceIds[i]),
    ],
  );
}
