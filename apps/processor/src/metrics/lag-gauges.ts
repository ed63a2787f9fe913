import { Gauge } from 'prom-client';
import type { DataSource } from 'typeorm';
import { type NatsResources, STREAM_KEYS, type StreamKey, consumerBacklogs } from '@app/eventlog';
import { type ProjectionPosition } from '@app/persistence';
import { projectionLag, telemetryPosition } from '@app/projections';

/** The projections that record what they applied, with the stream they read: each has a lag by its watermark. */
const watermarkedProjections = (nats: NatsResources): { stream: StreamKey; position: ProjectionPosition }[] => [{ stream: 'ingest', position: telemetryPosition(nats) }];

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
    help: "Stored messages a projection has not applied yet: the stream's last sequence minus the projection's applied watermark",
    labelNames: ['projection'] as const,
    registers: [],
    async collect() {
      this.reset();
      for (const { stream, position } of watermarkedProjections(nats)) {
        try {
          this.set({ projection: position.projection }, await projectionLag(ds, nats, stream, position));
        } catch {
          // Left out: see above.
        }
      }
    },
  });
  return [pending, lag];
}
