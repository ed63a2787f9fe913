import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { ChunkReader, type NatsResources, replayStream, streamLastSeq } from '@app/eventlog';
import { ProjectionCheckpoints, withAdvisoryLock } from '@app/persistence';
import type { StreamProjection } from '../projection';
import { type BatchPreparer, inProcessPreparer } from './batch-preparer';
import {
  type ShadowTables,
  createShadowTables,
  dropShadowTables,
  indexShadowTables,
  lockLiveTables,
  shadowTablesOf,
  swapInShadowTables,
  writeToShadowTables,
} from './shadow-tables';
import { ProjectPriceTables } from '../telemetry/project-prices';

/** Messages per replayed transaction: larger than live batches, since nobody waits on a rebuild's first rows. */
const REBUILD_BATCH_MESSAGES = 256;
/** The swap replays what is left with the live tables locked; catch up until that is at most this many messages. */
const SWAP_BACKLOG_MESSAGES = 1_000;
/** Catch-up rounds before swapping anyway, should the stream grow faster than the rebuild reads it. */
const MAX_CATCH_UP_ROUNDS = 5;

export class RebuildBusyError extends Error {}

/**
 * Runs `work` under the projection's rebuild lock, on the lock's own connection; another
 * session holding it is an error at once rather than a wait behind a running rebuild.
 */
export async function withRebuildLock<T>(ds: DataSource, projection: string, work: (runner: QueryRunner) => Promise<T>): Promise<T> {
  const run = await withAdvisoryLock(ds, `spanlog:rebuild:${projection}`, work);
  if (!run.locked) throw new RebuildBusyError(`another rebuild of the ${projection} projection is running`);
  return run.value;
}

export interface RebuildProgress {
  phase: 'replay' | 'catch-up' | 'index' | 'swap';
  /** Last stream sequence applied to the shadow tables. */
  seq: number;
  /** The sequence this phase reads to. */
  targetSeq: number;
  /** Messages read so far (skipped ones included). */
  messages: number;
}

export interface RebuildOptions {
  /** Told of each step; the rebuild waits for what it returns (a test changes prices between two batches this way). */
  onProgress?: (p: RebuildProgress) => void | Promise<void>;
  /** Called for each message that cannot be applied, with why. */
  onSkipped?: (seq: number, reason: string) => void;
}

/** What a projection's rebuild adds to the replay and the swap. */
export interface ShadowRebuildHooks<Swapped> {
  /** In the swap's transaction, the live tables locked and the shadow ones complete, before they are swapped in. */
  beforeSwap(m: EntityManager, shadow: ShadowTables): Promise<Swapped>;
  /** In the swap's transaction, after it, with the last sequence the new tables hold. */
  afterSwap?(m: EntityManager, lastSeq: number): Promise<void>;
}

/** What replaying a stream into shadow tables read. */
export interface ShadowReplayed {
  /** Threads that decoded and prepared the batches: 0 in the rebuild's own. */
  workers: number;
  /** The stream replayed, prefix included. */
  stream: string;
  /** The last stream sequence the new tables hold. */
  lastSeq: number;
  messages: number;
  /** Messages that can never be applied (they were dead-lettered live too). */
  skipped: number;
}

export interface ShadowRebuild<Swapped> extends ShadowReplayed {
  /** What `beforeSwap` returned. */
  swapped: Swapped;
}

/** What every stream projection's rebuild reports, before what its own tables add. */
export interface StreamRebuildResult extends ShadowReplayed {
  projection: string;
  version: number;
  durationMs: number;
}

/**
 * Rebuilds a stream projection from its definition (DESIGN "Projections"), on the connection
 * holding its rebuild lock: replays the source stream from its first sequence into shadow
 * tables with the definition's `decode`, `prepare` and `apply`, while the live tables keep
 * serving; catches up; then, in one transaction with the live tables locked, applies what was
 * appended up to the stream's end read under the lock, swaps the tables and records the
 * version. A live batch that committed before the lock has its messages at or below that
 * end; one waiting on the lock applies to the new tables, which already hold its messages:
 * `apply` is idempotent, so nothing is lost or applied twice. A failure leaves the live
 * tables as they were.
 */
export async function rebuildInShadow<Event, Batch, Swapped>(
  runner: QueryRunner,
  nats: NatsResources,
  projection: StreamProjection<Event, Batch, unknown>,
  hooks: ShadowRebuildHooks<Swapped>,
  options: RebuildOptions = {},
  /** The caller's, which it closes; by default the definition's own decode and prepare in this thread. */
  preparer: BatchPreparer<Batch> = inProcessPreparer(projection, {
    chunks: new ChunkReader(nats.js, nats.layout),
    // The projects' prices as they are now: a rebuild computes costs with the current definitions.
    prices: new ProjectPriceTables(runner.connection),
  }),
): Promise<ShadowRebuild<Swapped>> {
  const stream = projection.source.stream;
  const shadow = await shadowTablesOf(runner.manager, projection);
  const replayer = new ShadowReplayer(nats, projection, shadow, options, preparer);
  await createShadowTables(runner.manager, shadow);
  try {
    await replayer.replayTo(runner, await streamLastSeq(nats, stream), 'replay');
    for (let round = 0; round < MAX_CATCH_UP_ROUNDS; round++) {
      const target = await streamLastSeq(nats, stream);
      if (target - replayer.seq <= SWAP_BACKLOG_MESSAGES) break;
      await replayer.replayTo(runner, target, 'catch-up');
    }
    await options.onProgress?.({ phase: 'index', seq: replayer.seq, targetSeq: replayer.seq, messages: replayer.messages });
    await indexShadowTables(runner.manager, shadow);
    // The runner's manager runs transactions on the runner's own connection, the one holding the advisory lock.
    const swapped = await runner.manager.transaction(async (m) => {
      await lockLiveTables(m, shadow);
      // Read under the lock: every message a live batch committed before it is at or below this.
      const target = await streamLastSeq(nats, stream);
      await options.onProgress?.({ phase: 'swap', seq: replayer.seq, targetSeq: target, messages: replayer.messages });
      await replayer.replayInto(m, target);
      const result = await hooks.beforeSwap(m, shadow);
      await swapInShadowTables(m, shadow);
      await hooks.afterSwap?.(m, replayer.seq);
      await new ProjectionCheckpoints(m).recordServingVersion(projection.name, projection.version);
      return result;
    });
    return {
      workers: preparer.workers,
      stream: nats.layout.streamName(stream),
      lastSeq: replayer.seq,
      messages: replayer.messages,
      skipped: replayer.skipped,
      swapped,
    };
  } catch (err) {
    await dropShadowTables(runner.manager, shadow).catch(() => undefined);
    throw err;
  }
}

/** Applies the source stream, in order, to the shadow tables, and remembers how far it got. */
class ShadowReplayer<Event, Batch> {
  seq = 0;
  messages = 0;
  skipped = 0;

  constructor(
    private readonly nats: NatsResources,
    private readonly projection: StreamProjection<Event, Batch, unknown>,
    private readonly shadow: ShadowTables,
    private readonly options: RebuildOptions,
    private readonly preparer: BatchPreparer<Batch>,
  ) {}

  /** One transaction per batch, so a long replay holds no transaction open. */
  replayTo(runner: QueryRunner, targetSeq: number, phase: RebuildProgress['phase']): Promise<void> {
    return this.replay(targetSeq, (batch) => runner.manager.transaction((m) => this.write(m, batch)), phase);
  }

  /** Everything into the caller's transaction: the swap's last stretch. */
  replayInto(manager: EntityManager, targetSeq: number): Promise<void> {
    return this.replay(targetSeq, (batch) => this.write(manager, batch), 'swap');
  }

  /**
   * Reads, decodes and prepares the next batches while the previous one is written, as the
   * live runner does, as far ahead as the preparer says; writes stay one at a time and in order.
   */
  private async replay(targetSeq: number, apply: (batch: Batch | null) => Promise<void>, phase: RebuildProgress['phase']): Promise<void> {
    const range = { fromSeq: this.seq + 1, toSeq: targetSeq, batchSize: REBUILD_BATCH_MESSAGES };
    // Each batch's write, chained after the previous one's, and the batches still being prepared.
    const unwritten: Promise<void>[] = [];
    const preparing = new Set<Promise<unknown>>();
    let writing: Promise<void> = Promise.resolve();
    const reading = replayStream(this.nats, this.projection.source.stream, range, async (msgs) => {
      const prepared = this.preparer.prepare(msgs);
      const settled = prepared.then(
        () => void preparing.delete(settled),
        () => void preparing.delete(settled),
      );
      preparing.add(settled);
      const last = msgs[msgs.length - 1].seq;
      const previous = writing;
      writing = (async () => {
        await previous;
        const { batch, skipped } = await prepared;
        for (const { seq, reason } of skipped) this.options.onSkipped?.(seq, reason);
        await apply(batch);
        this.seq = last;
        this.skipped += skipped.length;
        this.messages += msgs.length;
        await this.options.onProgress?.({ phase, seq: this.seq, targetSeq, messages: this.messages });
      })();
      // Awaited below or at the end; a failure meanwhile is not an unhandled rejection.
      writing.catch(() => undefined);
      unwritten.push(writing);
      // Bounded memory: read on only while few enough batches wait for their write and are being prepared.
      while (unwritten.length > this.preparer.ahead.unwritten) await unwritten.shift();
      while (preparing.size > this.preparer.ahead.preparing) await Promise.race(preparing);
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

  /** The projection's own apply, with the shadow tables first on the transaction's search path; no live-only hook. */
  private async write(manager: EntityManager, batch: Batch | null): Promise<void> {
    if (!batch) return;
    await writeToShadowTables(manager, this.shadow);
    await this.projection.apply(manager, batch);
  }
}
