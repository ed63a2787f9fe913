import type { RunItemDelta, ScoreDelta, SpanDelta, TelemetryFacts, TraceDelta, Versioned } from './records';

/**
 * Per-field last-writer-wins (CONTRACT merge rule): a field keeps the value of the newest
 * version that set it, so merging is commutative, associative and idempotent, and events
 * may be applied in any order, any number of times. The SQL upsert in the projection
 * applies the same rule against stored rows.
 */
export function mergeVersioned<F>(a: Versioned<F>, b: Versioned<F>): Versioned<F> {
  const merged: Versioned<F> = { values: { ...a.values }, versions: { ...a.versions } };
  mergeVersionedInto(merged, b);
  return merged;
}

/** `mergeVersioned` into `target`'s own `values` and `versions`, which it changes. */
function mergeVersionedInto<F>({ values, versions }: Versioned<F>, b: Versioned<F>): void {
  for (const key of Object.keys(b.versions) as (keyof F & string)[]) {
    const incoming = b.versions[key] as string;
    const current = versions[key];
    // On an equal version (the same event twice) the value is the same; keep the first.
    if (current === undefined || incoming > current) {
      versions[key] = incoming;
      values[key] = b.values[key];
    }
  }
}

const minIso = (a: string | null, b: string | null): string | null => {
  if (a === null) return b;
  if (b === null) return a;
  return a < b ? a : b;
};

const firstNonNull = <T>(a: T | null, b: T | null): T | null => a ?? b;

/**
 * A merge into a delta made by a merge of the fold's own, which nothing else holds: it changes
 * the delta (and its `values` and `versions`) where a merge copies them, with the same result.
 */
type MergeInto<D> = (owned: D, b: D) => void;

/** `a`'s copy to merge into: its own `values` and `versions`, in `a`'s key order as a spread of `a` keeps it. */
const ownCopyOf = <D extends Versioned<unknown>>(a: D): D => ({ ...a, values: { ...a.values }, versions: { ...a.versions } });

/** The merge of two deltas neither of which it changes: `into` on a copy of the first. */
const copyThenMerge =
  <D extends Versioned<unknown>>(into: MergeInto<D>) =>
  (a: D, b: D): D => {
    const merged = ownCopyOf(a);
    into(merged, b);
    return merged;
  };

const mergeTraceInto: MergeInto<TraceDelta> = (owned, b) => {
  mergeVersionedInto(owned, b);
  owned.otelTraceId = firstNonNull(owned.otelTraceId, b.otelTraceId);
  owned.externalId = firstNonNull(owned.externalId, b.externalId);
  owned.createdAt = minIso(owned.createdAt, b.createdAt) as string;
  owned.firstEventTime = minIso(owned.firstEventTime, b.firstEventTime) as string;
  owned.minSpanStart = minIso(owned.minSpanStart, b.minSpanStart);
  if (owned.legacyIds?.length || b.legacyIds?.length) owned.legacyIds = [...new Set([...(owned.legacyIds ?? []), ...(b.legacyIds ?? [])])];
};

export const mergeTrace = copyThenMerge(mergeTraceInto);

const mergeSpanInto: MergeInto<SpanDelta> = (owned, b) => {
  mergeVersionedInto(owned, b);
  owned.otelSpanId = firstNonNull(owned.otelSpanId, b.otelSpanId);
  owned.externalId = firstNonNull(owned.externalId, b.externalId);
  owned.createdAt = minIso(owned.createdAt, b.createdAt) as string;
};

export const mergeSpan = copyThenMerge(mergeSpanInto);

const mergeScoreInto: MergeInto<ScoreDelta> = (owned, b) => {
  mergeVersionedInto(owned, b);
  owned.externalId = firstNonNull(owned.externalId, b.externalId);
  owned.createdAt = minIso(owned.createdAt, b.createdAt) as string;
};

export const mergeScore = copyThenMerge(mergeScoreInto);

/** The newer link of an item in a run wins whole; it was first linked at the earlier time. */
export function mergeRunItem(a: RunItemDelta, b: RunItemDelta): RunItemDelta {
  const newer = b.version > a.version ? b : a;
  return { ...newer, createdAt: minIso(a.createdAt, b.createdAt) as string };
}

/**
 * One delta per key, in order of first mention. A key's first delta is kept as it is; given
 * `mergeInto`, the first merge copies it and later ones merge into that copy, so a trace
 * mentioned by every span of an export is not copied again for each span.
 */
function foldByKey<D extends { projectId: string; id: string }>(
  facts: TelemetryFacts[],
  deltasOf: (f: TelemetryFacts) => D[],
  merge: (a: D, b: D) => D,
  mergeInto?: MergeInto<D>,
): D[] {
  const folded: D[] = [];
  // Per project, per id, where `folded` holds the delta: no key text to build per delta.
  const positions = new Map<string, Map<string, number>>();
  // Whether `folded` holds there a copy of the fold's own, which later merges may change.
  const owned: boolean[] = [];
  for (const f of facts) {
    for (const item of deltasOf(f)) {
      let ofProject = positions.get(item.projectId);
      if (ofProject === undefined) positions.set(item.projectId, (ofProject = new Map()));
      const at = ofProject.get(item.id);
      if (at === undefined) {
        ofProject.set(item.id, folded.length);
        folded.push(item);
        owned.push(false);
      } else if (mergeInto && owned[at]) mergeInto(folded[at], item);
      else {
        folded[at] = merge(folded[at], item);
        owned[at] = true;
      }
    }
  }
  return folded;
}

/** One delta per row, so a batch of messages becomes one upsert per table. */
export function foldFacts(facts: TelemetryFacts[]): TelemetryFacts {
  return {
    traces: foldByKey(facts, (f) => f.traces, mergeTrace, mergeTraceInto),
    spans: foldByKey(facts, (f) => f.spans, mergeSpan, mergeSpanInto),
    scores: foldByKey(facts, (f) => f.scores, mergeScore, mergeScoreInto),
    // A newer link replaces the item whole, key order included: no merge into a copy.
    runItems: foldByKey(facts, (f) => f.runItems, mergeRunItem),
    // A deletion is final, whatever its order among the other facts.
    deletions: facts.flatMap((f) => f.deletions),
    // So is a score's: the writer removes it after the batch's upserts.
    scoreDeletions: facts.flatMap((f) => f.scoreDeletions),
  };
}
