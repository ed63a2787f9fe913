import type { RunItemDelta, ScoreDelta, SpanDelta, TelemetryFacts, TraceDelta, Versioned } from './records';

/**
 * Per-field last-writer-wins (CONTRACT merge rule): a field keeps the value of the newest
 * version that set it, so merging is commutative, associative and idempotent, and events
 * may be applied in any order, any number of times. The SQL upsert in the projection
 * applies the same rule against stored rows.
 */
export function mergeVersioned<F>(a: Versioned<F>, b: Versioned<F>): Versioned<F> {
  const values: Partial<F> = { ...a.values };
  const versions = { ...a.versions };
  for (const key of Object.keys(b.versions) as (keyof F & string)[]) {
    const incoming = b.versions[key] as string;
    const current = versions[key];
    // On an equal version (the same event twice) the value is the same; keep the first.
    if (current === undefined || incoming > current) {
      versions[key] = incoming;
      values[key] = b.values[key];
    }
  }
  return { values, versions };
}

const minIso = (a: string | null, b: string | null): string | null => {
  if (a === null) return b;
  if (b === null) return a;
  return a < b ? a : b;
};

const firstNonNull = <T>(a: T | null, b: T | null): T | null => a ?? b;

export function mergeTrace(a: TraceDelta, b: TraceDelta): TraceDelta {
  return {
    ...a,
    ...mergeVersioned(a, b),
    otelTraceId: firstNonNull(a.otelTraceId, b.otelTraceId),
    externalId: firstNonNull(a.externalId, b.externalId),
    createdAt: minIso(a.createdAt, b.createdAt) as string,
    firstEventTime: minIso(a.firstEventTime, b.firstEventTime) as string,
    minSpanStart: minIso(a.minSpanStart, b.minSpanStart),
    ...legacyIdsOf(a, b),
  };
}

function legacyIdsOf(a: TraceDelta, b: TraceDelta): Pick<TraceDelta, 'legacyIds'> {
  if (!a.legacyIds?.length && !b.legacyIds?.length) return {};
  return { legacyIds: [...new Set([...(a.legacyIds ?? []), ...(b.legacyIds ?? [])])] };
}

export function mergeSpan(a: SpanDelta, b: SpanDelta): SpanDelta {
  return {
    ...a,
    ...mergeVersioned(a, b),
    otelSpanId: firstNonNull(a.otelSpanId, b.otelSpanId),
    externalId: firstNonNull(a.externalId, b.externalId),
    createdAt: minIso(a.createdAt, b.createdAt) as string,
  };
}

export function mergeScore(a: ScoreDelta, b: ScoreDelta): ScoreDelta {
  return {
    ...a,
    ...mergeVersioned(a, b),
    externalId: firstNonNull(a.externalId, b.externalId),
    createdAt: minIso(a.createdAt, b.createdAt) as string,
  };
}

/** The newer link of an item in a run wins whole; it was first linked at the earlier time. */
export function mergeRunItem(a: RunItemDelta, b: RunItemDelta): RunItemDelta {
  const newer = b.version > a.version ? b : a;
  return { ...newer, createdAt: minIso(a.createdAt, b.createdAt) as string };
}

function foldByKey<D extends { projectId: string; id: string }>(items: D[], merge: (a: D, b: D) => D): D[] {
  const byKey = new Map<string, D>();
  for (const item of items) {
    const key = `${item.projectId}/${item.id}`;
    const existing = byKey.get(key);
    byKey.set(key, existing ? merge(existing, item) : item);
  }
  return [...byKey.values()];
}

/** One delta per row, so a batch of messages becomes one upsert per table. */
export function foldFacts(facts: TelemetryFacts[]): TelemetryFacts {
  return {
    traces: foldByKey(
      facts.flatMap((f) => f.traces),
      mergeTrace,
    ),
    spans: foldByKey(
      facts.flatMap((f) => f.spans),
      mergeSpan,
    ),
    scores: foldByKey(
      facts.flatMap((f) => f.scores),
      mergeScore,
    ),
    runItems: foldByKey(
      facts.flatMap((f) => f.runItems),
      mergeRunItem,
    ),
    // A deletion is final, whatever its order among the other facts.
    deletions: facts.flatMap((f) => f.deletions),
    // So is a score's: the writer removes it after the batch's upserts.
    scoreDeletions: facts.flatMap((f) => f.scoreDeletions),
  };
}
