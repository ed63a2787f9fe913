import type { DataSource } from 'typeorm';
import { ChunkReader, type NatsResources, deadLetteredSeqs, firstSeqStoredSince, replayStream, streamLastSeq } from '@app/eventlog';
import { ProjectionCheckpoints } from '@app/persistence';
import { decodeStored } from '../projection';
import type { DecodedIngestMessage } from './decode-ingest-message';
import { projectSubjects } from './project-subjects';
import { applyTelemetryBatch, telemetryPosition, telemetryProjection } from './telemetry.projection';
import { ProjectPriceTables } from './project-prices';

/** Messages read at once and applied per transaction. */
const REPLAY_BATCH = 256;

export interface ReplayOptions {
  projectId: string;
  /** Where to start: a stream sequence, or the first of the project's messages stored at or after an instant. */
  from: { seq: number } | { time: Date };
  /** Called for each message that cannot be read, with why. */
  onSkipped?: (seq: number, reason: string) => void;
}

export interface ReplayResult {
  projectId: string;
  stream: string;
  /** The sequences replayed: from the start asked for to the stream's end when the replay began. */
  fromSeq: number;
  toSeq: number;
  /** The project's messages in that range. */
  messages: number;
  applied: number;
  /** Messages that cannot be read (the live projection dead-lettered them). */
  skipped: number;
  /**
   * Messages still in the dead-letter stream, left to `spanlog dlq retry`: it is the one path
   * that applies them and counts their usage, which was never counted.
   */
  deadLettered: number;
  durationMs: number;
}

/**
 * Applies one project's stored requests again from a point in INGEST, through the live
 * projection's own apply (DESIGN "Projections"): what is missing from the rows comes back, and
 * what is there stays (the merge rule keeps a stored value against the same event), so a replay
 * run twice changes nothing. No evaluation is scheduled, so no webhook is called. Usage is
 * counted only for messages the projection has not applied yet, and then only for rows they
 * create: whichever of the replay and the live consumer creates a row counts it, once.
 */
export async function replayTelemetry(ds: DataSource, nats: NatsResources, options: ReplayOptions): Promise<ReplayResult> {
  const started = Date.now();
  const filterSubject = await projectSubjects(ds, nats, options.projectId);
  const toSeq = await streamLastSeq(nats, 'ingest');
  const fromSeq =
    'seq' in options.from ? options.from.seq : ((await firstSeqStoredSince(nats, 'ingest', options.from.time, filterSubject)) ?? toSeq + 1);
  const position = telemetryPosition(nats);
  // Read before any message: one applied by then was counted by then.
  const checkpoints = new ProjectionCheckpoints(ds);
  const watermark = await checkpoints.appliedThrough(position);
  const appliedAbove = new Set(await checkpoints.appliedAboveWatermark(position));
  const deadLettered = await deadLetteredSeqs(nats, {
    stream: position.stream,
    consumer: nats.layout.consumerName(telemetryProjection.source.consumer),
  });
  const result: ReplayResult = {
    projectId: options.projectId,
    stream: position.stream,
    fromSeq,
    toSeq,
    messages: 0,
    applied: 0,
    skipped: 0,
    deadLettered: 0,
    durationMs: 0,
  };
  const chunks = new ChunkReader(nats.js, nats.layout);
  const prices = new ProjectPriceTables(ds);
  const apply = async (items: DecodedIngestMessage[], countUsage: boolean) => {
    if (!items.length) return;
    await applyTelemetryBatch(ds, position, await telemetryProjection.prepare(items, { prices }), {
      scheduleEvaluations: false,
      countUsage,
    });
    result.applied += items.length;
  };
  await replayStream(nats, 'ingest', { fromSeq, toSeq, batchSize: REPLAY_BATCH, filterSubject }, async (msgs) => {
    const applied: DecodedIngestMessage[] = [];
    const unapplied: DecodedIngestMessage[] = [];
    for (const msg of msgs) {
      if (msg.seq > toSeq) break;
      result.messages++;
      if (deadLettered.has(msg.seq)) {
        result.deadLettered++;
        continue;
      }
      const decoded = await decodeStored(telemetryProjection, msg, { chunks });
      if (!decoded.ok) {
        result.skipped++;
        options.onSkipped?.(msg.seq, decoded.reason);
        continue;
      }
      (msg.seq <= watermark || appliedAbove.has(msg.seq) ? applied : unapplied).push(decoded.event);
    }
    await apply(applied, false);
    await apply(unapplied, true);
  });
  return { ...result, durationMs: Date.now() - started };
}
