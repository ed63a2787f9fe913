import type { RecountPace, RecountedBuckets } from '@app/projections';

/** The least age of a mark before its bucket is recounted (a repeated mark keeps its first time). */
export const SETTLE_MS = 5_000;

/**
 * A recount reads its whole bucket while the batches writing into it wait, and a backlog's drain
 * marks the same bucket in every batch: waiting ten times the recount's cost per row the bucket
 * counted makes recounting a growing bucket take about a tenth of the time (recounting it every
 * second cost the drain of 200,000 spans into one hour a third of its rate, docs/BENCHMARKS.md).
 */
const PACE_PER_COST = 10;

/**
 * Messages the telemetry projection may be behind its stream before the recounts give way to
 * it: a few batches, more than a steady load leaves waiting between two fetches.
 */
export const BACKLOG_MESSAGES = 256;

/**
 * The least age of a mark while the telemetry projection drains a backlog. Rows first, counts
 * after: a recount during the drain takes the CPU the drain needs (a 10 s burst's backlog took
 * a fifth longer to drain with them, on two cores, docs/BENCHMARKS.md), and the drain marks the
 * same buckets again at once. Long enough for a burst's drain to end first; a longer backlog's
 * buckets are still recounted, each about once a minute.
 */
export const BACKLOG_SETTLE_MS = 60_000;

/** How long a kind's marks wait before their recount, with the telemetry projection `lag` messages behind. */
export function recountPaceOf(kind: Pick<RecountedBuckets, 'msPerRow'>, lag: number): RecountPace {
  return { floorMs: lag > BACKLOG_MESSAGES ? BACKLOG_SETTLE_MS : SETTLE_MS, msPerRow: PACE_PER_COST * kind.msPerRow };
}
