import type { DataSource } from 'typeorm';
import { type NatsResources, consumerUnacknowledged } from '@app/eventlog';
import { projectionLag } from './applied-watermark';
import { auditProjection } from './audit/audit.projection';
import type { StreamProjection } from './projection';
import { telemetryPosition, telemetryProjection } from './telemetry/telemetry.projection';
import { usageProjection } from './usage/usage.projection';

/** How many stored messages one stream projection has not applied yet, by the best measure it keeps. */
export interface StreamProjectionLag {
  projection: string;
  lag(ds: DataSource, nats: NatsResources): Promise<number>;
}

/**
 * Usage and audit keep no watermark (their ids make a redelivery a no-op and nothing waits on
 * them), but they acknowledge only after their commit, so what their consumer has not
 * acknowledged is what they have not applied; a dead letter is acknowledged, as it is handled.
 */
const byAcks = (projection: Pick<StreamProjection<unknown>, 'name' | 'source'>): StreamProjectionLag => ({
  projection: projection.name,
  lag: (_ds, nats) => consumerUnacknowledged(nats, projection.source.stream, projection.source.consumer),
});

/** Stored INGEST messages the telemetry projection has not applied: the stream's last sequence minus the watermark reads wait for. */
export const telemetryLag = (ds: DataSource, nats: NatsResources): Promise<number> =>
  projectionLag(ds, nats, telemetryProjection.source.stream, telemetryPosition(nats));

/**
 * Every stream projection's lag, for the metrics and health. Telemetry's is counted from the
 * watermark it records with its rows, what reads with `minSeq` wait for, not from acks.
 */
export const STREAM_PROJECTION_LAGS: readonly StreamProjectionLag[] = [
  { projection: telemetryProjection.name, lag: telemetryLag },
  byAcks(usageProjection),
  byAcks(auditProjection),
];
