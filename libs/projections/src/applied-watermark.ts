import type { DataSource } from 'typeorm';
import { type NatsResources, type StreamKey, consumerAckFloor, nextStoredSeq, streamLastSeq } from '@app/eventlog';
import { ProjectionCheckpoints, type ProjectionPosition } from '@app/persistence';

export type WatermarkCheck =
  /** Every stored message up to the stream's end is applied. */
  | { state: 'current'; watermark: number }
  /** The next message is stored and still with the consumer (pending, or being applied). */
  | { state: 'waiting'; watermark: number }
  /** Sequences above the watermark are no longer stored (retention removed them): moved past them. */
  | { state: 'skipped'; watermark: number; from: number; through: number }
  /**
   * The next message is stored, never applied, and its consumer counts it as acknowledged: it
   * will never be delivered again. Only a server that moved the consumer does this; `spanlog
   * verify --repair` applies it.
   */
  | { state: 'lost'; watermark: number; seq: number };

/**
 * Stored messages a projection has not applied yet (or that were removed and not yet passed):
 * the stream's end minus the watermark, which counts what was recorded with the rows, not acks.
 */
export async function projectionLag(ds: DataSource, nats: NatsResources, stream: StreamKey, position: ProjectionPosition): Promise<number> {
  const [last, applied] = await Promise.all([streamLastSeq(nats, stream), new ProjectionCheckpoints(ds).appliedThrough(position)]);
  return Math.max(0, last - applied);
}

/**
 * Looks at what holds a projection's watermark back and moves it past sequences that are no
 * longer stored, which no consumer delivers and so nothing records as applied. One call costs a
 * few requests; any number of processes may run it at once (the move is a maximum).
 */
export async function checkWatermark(
  ds: DataSource,
  nats: NatsResources,
  stream: StreamKey,
  consumer: string,
  position: ProjectionPosition,
): Promise<WatermarkCheck> {
  // Read before the watermark: a message acked by then was committed by then, so it is counted as applied below.
  const ackFloor = await consumerAckFloor(nats, stream, consumer);
  const lastSeq = await streamLastSeq(nats, stream);
  const checkpoints = new ProjectionCheckpoints(ds);
  const watermark = await checkpoints.appliedThrough(position);
  const gap = watermark + 1;
  if (gap > lastSeq) return { state: 'current', watermark };
  const next = await nextStoredSeq(nats, stream, gap);
  // Sequences below a stored one (or below the end read before) that are not stored were removed.
  const removedThrough = next === null ? lastSeq : next - 1;
  if (removedThrough >= gap) {
    return {
      state: 'skipped',
      watermark: await checkpoints.markHandledThrough(position, removedThrough),
      from: gap,
      through: removedThrough,
    };
  }
  if (gap <= ackFloor) return { state: 'lost', watermark, seq: gap };
  return { state: 'waiting', watermark };
}
