import { Gauge } from 'prom-client';
import type { DataSource } from 'typeorm';
import { type NatsResources, STREAM_KEYS, consumerBacklogs } from '@app/eventlog';
import { STREAM_PROJECTION_LAGS, markedStatsBuckets, modelStatsProjection } from '@app/projections';

/** Streams whose consumers are read for their backlog: every one but the dead letters, which nothing consumes. */
const CONSUMED_STREAMS = STREAM_KEYS.filter((key) => key !== 'deadLetter');

/**
 * Gauges read when scraped, from NATS and Postgres, so they hold now's value and cost nothing
 * between scrapes. When either cannot be read the series are left out rather than kept at
 * their last value: a stale lag would look healthy. Every processor shows the same values.
 */
export function lagGauges(ds: DataSource, nats: NatsResources): Gauge[] {
  const pending = new Gauge({
    name: 'spanlog_consumer_pending_messages',
    help: 'Messages in the stream not yet delivered to a durable consumer, by consumer',
    labelNames: ['consumer'] as const,
    registers: [],
    async collect() {
      this.reset();
      try {
        for (const stream of CONSUMED_STREAMS) {
          for (const { consumer, pending: n } of await consumerBacklogs(nats, stream)) this.set({ consumer }, n);
        }
      } catch {
        this.reset();
      }
    },
  });
  const lag = new Gauge({
    name: 'spanlog_projection_lag_messages',
    help: "Stored messages a projection has not applied yet: telemetry, the stream's last sequence minus its applied watermark; usage and audit, messages their consumer has not acknowledged",
    labelNames: ['projection'] as const,
    registers: [],
    async collect() {
      this.reset();
      await Promise.all(
        STREAM_PROJECTION_LAGS.map(async ({ projection, lag: lagOf }) => {
          try {
            this.set({ projection }, await lagOf(ds, nats));
          } catch {
            // Left out: see above.
          }
        }),
      );
    },
  });
  const buckets = new Gauge({
    name: 'spanlog_projection_lag_buckets',
    help: 'Buckets a projection derived from rows has marked and not recounted yet, by projection (model-stats: hourly and 5-minute)',
    labelNames: ['projection'] as const,
    registers: [],
    async collect() {
      this.reset();
      try {
        this.set({ projection: modelStatsProjection.name }, await markedStatsBuckets(ds));
      } catch {
        this.reset();
      }
    },
  });
  return [pending, lag, buckets];
}
