import type { DataSource } from 'typeorm';
import type { DerivedProjection } from '../projection';
import { refreshDirtyOverviewStats } from '../stats/overview-stats-store';
import { telemetryProjection } from '../telemetry/telemetry.projection';
import { refreshDirtyModelStats } from './model-stats-tables';

/** Up to `limit` marked buckets, the hourly model stats' first, then the overview's 5-minute ones. */
async function refreshDirtyStats(ds: DataSource, limit: number): Promise<number> {
  const hourly = await refreshDirtyModelStats(ds, limit);
  return hourly === limit ? hourly : hourly + (await refreshDirtyOverviewStats(ds, limit - hourly));
}

/**
 * The stats read model, equal to a recount of the telemetry rows: per (project, model, UTC hour)
 * calls, errors, tokens, cost, a latency histogram and score sums (model_stats, for routing), and
 * (version 2) the overview's and monitors' 5-minute span, trace and score stats by span type,
 * model and trace name. The telemetry apply marks the buckets a batch touches
 * (`markModelStatsDirty`); every processor recounts marked buckets (`ModelStatsRefresher`), and a
 * rebuild marks and recounts them all.
 */
export const modelStatsProjection: DerivedProjection = {
  name: 'model-stats',
  version: 2,
  tables: ['model_stats', 'model_score_stats', 'model_stats_dirty', 'span_stats_5m', 'trace_stats_5m', 'score_stats_5m', 'stats_5m_dirty'],
  derivedFrom: telemetryProjection.name,
  refresh: refreshDirtyStats,
};
