import type { DataSource } from 'typeorm';
import type { DerivedProjection, RecountedBuckets } from '../projection';
import { discardOldestDirtyOverviewBucket, refreshDirtyOverviewStats } from '../stats/overview-stats-store';
import { telemetryProjection } from '../telemetry/telemetry.projection';
import { discardOldestDirtyBucket, refreshDirtyModelStats } from './model-stats-tables';

/**
 * The hourly model stats, then the overview's 5-minute stats. Costs per row measured quiet
 * (docs/BENCHMARKS.md): the overview's recount joins the traces, so it costs about twice as much.
 */
const STATS_BUCKETS: readonly RecountedBuckets[] = [
  { name: 'model stats', recount: refreshDirtyModelStats, discardOldest: discardOldestDirtyBucket, msPerRow: 0.005 },
  { name: 'overview stats', recount: refreshDirtyOverviewStats, discardOldest: discardOldestDirtyOverviewBucket, msPerRow: 0.01 },
];

/** Up to `limit` marked buckets, whatever their age: each kind's in turn until `limit` is reached. */
async function recountAtOnce(ds: DataSource, limit: number): Promise<number> {
  let done = 0;
  for (const kind of STATS_BUCKETS) {
    if (done === limit) break;
    done += await kind.recount(ds, limit - done);
  }
  return done;
}

/**
 * The stats read model, equal to a recount of the telemetry rows: per (project, model, UTC hour)
 * calls, errors, tokens, cost, a latency histogram and score sums (model_stats, for routing), and
 * (version 2) the overview's and monitors' 5-minute span, trace and score stats by span type,
 * model and trace name, (version 3) and by operation, (version 4) with the spans whose usage the price
 * table could not price, per dimension and per model and usage type (`unpriced_stats_5m`), and (version 5) the token counts
 * telemetry version 6 gives usage sent by type alone, all of them rolled up per hour (`*_stats_1h`, read for long ranges). The telemetry apply marks the buckets a batch touches
 * (`markModelStatsDirty`); every processor recounts marked buckets kind by kind at its pace
 * (`ModelStatsRefresher`), and a rebuild marks them all and drains them with `refresh`.
 */
export const modelStatsProjection: DerivedProjection = {
  name: 'model-stats',
  version: 5,
  tables: [
    'model_stats',
    'model_score_stats',
    'model_stats_dirty',
    'span_stats_5m',
    'trace_stats_5m',
    'score_stats_5m',
    'unpriced_stats_5m',
    'span_stats_1h',
    'trace_stats_1h',
    'score_stats_1h',
    'unpriced_stats_1h',
    'stats_5m_dirty',
  ],
  derivedFrom: telemetryProjection.name,
  buckets: STATS_BUCKETS,
  refresh: recountAtOnce,
};
