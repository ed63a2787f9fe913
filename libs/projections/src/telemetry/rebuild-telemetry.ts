import { setImmediate } from 'node:timers/promises';
import type { JsMsg } from 'nats';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { ChunkReader, type NatsResources, deadLetteredSeqs, replayStream, streamLastSeq } from '@app/eventlog';
import { type UsageCount, appliedThrough, markHandledThrough, queueUsage, recordServingVersion, withAdvisoryLock } from '@app/persistence';
import { markAllModelStatsDirty } from '../model-stats/model-stats-tables';
import { decodeStored } from '../projection';
import {
  type ReplayedRow,
  countRowsOnlyInShadow,
  countShadowRows,
  createShadowTables,
  dropShadowTables,
  indexShadowTables,
  liveSchema,
  lockLiveTables,
  swapInShadowTables,
  writeToShadowTables,
} from './tables/shadow-tables';
import type { DecodedIngestMessage } from './decode-ingest-message';
import { type TelemetryBatch, telemetryPosition, telemetryProjection } from './telemetry.projection';

/** Messages per replayed transaction: larger than live batches, since nobody waits on a rebuild's first rows. */
const REBUILD_BATCH_MESSAGES = 256;
/** The swap replays what is left with the live tables locked; catch up until that is at most this many messages. */
const SWAP_BACKLOG_MESSAGES = 1_000;
/** Catch-up rounds before swapping anyway, should ingestion outpace the rebuild. */
const MAX_CATCH_UP_ROUNDS = 5;
/** Sessions that cannot take the lock report at once instead of queueing behind a running rebuild. */
const REBUILD_LOCK_KEY = 'spanlog:rebuild:telemetry';

export class RebuildBusyError extends Error {}

export interface RebuildProgress {
  phase: 'replay' | 'catch-up' | 'index' | 'swap';
  /** Last stream sequence applied to the shadow tables. */
  seq: number;
  /** The sequence this phase reads to. */
  targetSeq: number;
  messages: number;
}

export interface RebuildResult {
  projection: string;
  version: number;
  stream: string;
  /** The last stream sequence the new tables hold. */
  lastSeq: number;
  messages: number;
  /** Messages that can never be applied (they were dead-lettered live too). */
  skipped: number;
  traces: number;
  spans: number;
  scores: number;
  /**
   * Traces and spans the rebuild created before the live projection did: the live
   * projection finds them existing after the swap, so the rebuild counts their usage.
   */
  usageCounted: { traces: number; spans: number };
  durationMs: number;
}

export interface RebuildOptions {
  onProgress?: (p: RebuildProgress) => void;
  /** Called for each message that cannot be applied, with why. */
  onSkipped?: (seq: number, reason: string) => void;
}

/**
 * Rebuilds traces, spans and scores from INGEST (DESIGN "Projections"): replays the stream
 * from its first sequence into shadow tables while the live tables keep serving, catches
 * up, then, with the live tables locked, applies the last messages and swaps the tables in
 * one transaction. Deletions are events in the stream and tombstones stay in place, so
 * nothing deleted comes back. Usage is counted once: the swap counts only the rows it
 * created ahead of the live projection, which will find them existing. A failure leaves
 * the live tables as they were.
 */
export async function rebuildTelemetry(ds: DataSource, nats: NatsResources, options: RebuildOptions = {}): Promise<RebuildResult> {
  const started = Date.now();
  const run = await withAdvisoryLock(ds, REBUILD_LOCK_KEY, (runner) => rebuildLocked(runner, nats, options, started));
  if (!run.locked) throw new RebuildBusyError('another rebuild of the telemetry projection is running');
  return run.value;
}

async function rebuildLocked(runner: QueryRunner, nats: NatsResources, options: RebuildOptions, started: number): Promise<RebuildResult> {
  const live = await liveSchema(runner.manager);
  // Every message at or below the live watermark is in the live tables and counted, but for the
  // dead-lettered ones: rows of those and of later ones may not be (a dead letter this rebuild
  // can apply would otherwise never be counted: `spanlog dlq retry` then finds its rows existing).
  const position = telemetryPosition(nats);
  const liveFloor = await appliedThrough(runner.manager, position);
  const deadLettered = await deadLetteredSeqs(nats, { stream: position.stream, consumer: nats.layout.consumerName(telemetryProjection.source.consumer) });
  const replayer = new ShadowReplayer(nats, live, (seq) => seq > liveFloor || deadLettered.has(seq), options);
  await createShadowTables(runner.manager, live);
  try {
    await replayer.replayTo(runner, await streamLastSeq(nats, 'ingest'), 'replay');
    for (let round = 0; round < MAX_CATCH_UP_ROUNDS; round++) {
      const target = await streamLastSeq(nats, 'ingest');
      if (target - replayer.seq <= SWAP_BACKLOG_MESSAGES) break;
      await replayer.replayTo(runner, target, 'catch-up');
    }
    options.onProgress?.({ phase: 'index', seq: replayer.seq, targetSeq: replayer.seq, messages: replayer.messages });
    await indexShadowTables(runner.manager, live);
    // The runner's manager runs transactions on the runner's own connection, the one holding the advisory lock.
    const counts = await runner.manager.transaction(async (m) => {
      await lockLiveTables(m, live);
      // Read under the lock: every message a live batch committed before it is at or below this.
      const target = await streamLastSeq(nats, 'ingest');
      options.onProgress?.({ phase: 'swap', seq: replayer.seq, targetSeq: target, messages: replayer.messages });
      await replayer.replayInto(m, target);
      const rows = await countShadowRows(m);
      const usage = await usageOfRowsOnlyInShadow(m, live, replayer.rowsLiveMayLack);
      await queueUsage(m, usage);
      await swapInShadowTables(m, live);
      // Every message up to here is in the new tables: reads waiting for one need not wait for the live consumer.
      await markHandledThrough(m, position, replayer.seq);
      await recordServingVersion(m, telemetryProjection.name, telemetryProjection.version);
      const total = (metric: UsageCount['metric']) => usage.filter((u) => u.metric === metric).reduce((n, u) => n + u.n, 0);
      return { ...rows, usageCounted: { traces: total('traces'), spans: total('spans') } };
    });
    // Model stats are counted from the rows, which are new tables now: every bucket is counted again (outside the swap's locks).
    await markAllModelStatsDirty(runner.manager);
    return {
      projection: telemetryProjection.name,
      version: telemetryProjection.version,
      stream: nats.layout.streamName('ingest'),
      lastSeq: replayer.seq,
      messages: replayer.messages,
      skipped: replayer.skipped,
      ...counts,
      durationMs: Date.now() - started,
    };
  } catch (err) {
    await dropShadowTables(runner.manager).catch(() => undefined);
    throw err;
  }
}

async function usageOfRowsOnlyInShadow(m: EntityManager, live: string, rows: { traces: ReplayedRow[]; spans: ReplayedRow[] }): Promise<UsageCount[]> {
  const traces = await countRowsOnlyInShadow(m, live, 'traces', rows.traces);
  const spans = await countRowsOnlyInShadow(m, live, 'spans', rows.spans);
  return [...traces.map((c) => ({ ...c, metric: 'traces' as const })), ...spans.map((c) => ({ ...c, metric: 'spans' as const }))];
}

/**
 * Applies INGEST, in order, to the shadow tables; remembers how far it got, and which traces
 * and spans the messages live may not have applied wrote (the only rows the live tables may
 * lack; a backlog's and the dead letters' worth, not the stream's).
 */
class ShadowReplayer {
  seq = 0;
  messages = 0;
  skipped = 0;
  readonly rowsLiveMayLack: { traces: ReplayedRow[]; spans: ReplayedRow[] } = { traces: [], spans: [] };
  private readonly seen = new Set<string>();
  private readonly chunks: ChunkReader;

  constructor(
    private readonly nats: NatsResources,
    private readonly live: string,
    /** Whether live may not have applied the message of this sequence. */
    private readonly liveMayLack: (seq: number) => boolean,
    private readonly options: RebuildOptions,
  ) {
    this.chunks = new ChunkReader(nats.js, nats.layout.blobBucket);
  }

  /** One transaction per batch, so a long replay holds no transaction open. */
  replayTo(runner: QueryRunner, targetSeq: number, phase: RebuildProgress['phase']): Promise<void> {
    return this.replay(targetSeq, (batch) => runner.manager.transaction((m) => this.write(m, batch)), phase);
  }

  /** Everything into the caller's transaction: the swap's last stretch. */
  replayInto(manager: EntityManager, targetSeq: number): Promise<void> {
    return this.replay(targetSeq, (batch) => this.write(manager, batch), 'swap');
  }

  /**
   * Reads, decodes and prepares the next batch while the previous one is written, as the live
   * projection does; writes stay one at a time and in order.
   */
  private async replay(targetSeq: number, apply: (batch: TelemetryBatch | null) => Promise<void>, phase: RebuildProgress['phase']): Promise<void> {
    const range = { fromSeq: this.seq + 1, toSeq: targetSeq, batchSize: REBUILD_BATCH_MESSAGES };
    let writing: Promise<void> = Promise.resolve();
    const reading = replayStream(this.nats, 'ingest', range, async (msgs) => {
      const items = await this.decode(msgs);
      const batch = items.length ? await telemetryProjection.prepare(items) : null;
      await writing;
      const last = msgs[msgs.length - 1].seq;
      writing = apply(batch).then(() => {
        this.seq = last;
        this.messages += msgs.length;
        this.options.onProgress?.({ phase, seq: this.seq, targetSeq, messages: this.messages });
      });
      // Awaited with the next batch or at the end; a failure meanwhile is not an unhandled rejection.
      writing.catch(() => undefined);
    });
    try {
      await reading;
    } catch (err) {
      // The write in flight ends before the caller cleans up on the same connection.
      await writing.catch(() => undefined);
      throw err;
    }
    await writing;
  }

  /** The event loop turns between messages, so the write in flight sends its statements meanwhile. */
  private async decode(msgs: JsMsg[]): Promise<DecodedIngestMessage[]> {
    const items: DecodedIngestMessage[] = [];
    for (const msg of msgs) {
      await setImmediate();
      const decoded = await decodeStored(telemetryProjection, msg, { chunks: this.chunks });
      if (!decoded.ok) {
        this.skipped++;
        this.options.onSkipped?.(msg.seq, decoded.reason);
        continue;
      }
      if (this.liveMayLack(msg.seq)) this.track(decoded.event);
      items.push(decoded.event);
    }
    return items;
  }

  private track({ envelope, facts }: DecodedIngestMessage): void {
    const add = (table: 'traces' | 'spans', projectId: string, id: string) => {
      const key = `${table}:${projectId}:${id}`;
      if (this.seen.has(key)) return;
      this.seen.add(key);
      this.rowsLiveMayLack[table].push({ orgId: envelope.orgId, projectId, id });
    };
    for (const t of facts.traces) add('traces', t.projectId, t.id);
    for (const s of facts.spans) add('spans', s.projectId, s.id);
  }

  /** The projection's own apply, with the shadow tables first on the transaction's search path; no live-only hook. */
  private async write(manager: EntityManager, batch: TelemetryBatch | null): Promise<void> {
    if (!batch) return;
    await writeToShadowTables(manager, this.live);
    await telemetryProjection.apply(manager, batch);
  }
}
