import type { DataSource } from 'typeorm';
import {
  ChunkReader,
  type DeadLetter,
  type NatsResources,
  type StreamMessage,
  deadLetterOf,
  getDeadLetter,
  readDeadLetters,
  removeStoredMessage,
} from '@app/eventlog';
import { applyTelemetryBatch, telemetryPosition, telemetryProjection } from '../telemetry/telemetry.projection';
import { ProjectPriceTables } from '../telemetry/project-prices';

export type RetryOutcome =
  /** Applied through the projection that dead-lettered it, and removed from the dead-letter stream. */
  | 'applied'
  /** Its projection could not apply it again: kept, with why. */
  | 'failed'
  /** It came from a consumer that has no way to apply it again: kept. */
  | 'kept';

export interface DeadLetterRetry extends DeadLetter {
  outcome: RetryOutcome;
  /** Why it was not applied. */
  error?: string;
}

export interface RetryResult {
  retried: DeadLetterRetry[];
  applied: number;
  failed: number;
  kept: number;
}

export class UnknownDeadLetterError extends Error {}

type Reapply = (msg: StreamMessage, letter: DeadLetter) => Promise<void>;

/**
 * Applies dead letters again (one, or all) through the projection that dead-lettered them,
 * after whatever made them fail was fixed, and removes each from the dead-letter stream once
 * applied (by sequence, never a purge). A dead letter that fails again, or whose consumer has
 * no way to apply it again, stays.
 */
export async function retryDeadLetters(
  ds: DataSource,
  nats: NatsResources,
  options: { id?: number; onRetried?: (r: DeadLetterRetry) => void } = {},
): Promise<RetryResult> {
  const result: RetryResult = { retried: [], applied: 0, failed: 0, kept: 0 };
  const paths = reapplyPaths(ds, nats);
  const retry = async (msg: StreamMessage) => {
    const letter = deadLetterOf(msg);
    const done = await retryOne(nats, paths, msg, letter);
    result.retried.push(done);
    result[done.outcome]++;
    options.onRetried?.(done);
  };
  if (options.id !== undefined) {
    const msg = await getDeadLetter(nats, options.id);
    if (!msg) throw new UnknownDeadLetterError(`no dead letter ${options.id} in ${nats.layout.streamName('deadLetter')}`);
    await retry(msg);
  } else {
    await readDeadLetters(nats, { withData: true }, async (msgs) => {
      for (const msg of msgs) await retry(msg);
    });
  }
  return result;
}

async function retryOne(
  nats: NatsResources,
  paths: Map<string, Reapply>,
  msg: StreamMessage,
  letter: DeadLetter,
): Promise<DeadLetterRetry> {
  const reapply = paths.get(sourceKey(letter.stream, letter.consumer));
  if (!reapply)
    return {
      ...letter,
      outcome: 'kept',
      error: `messages of ${letter.stream ?? 'an unknown stream'} (consumer ${letter.consumer ?? 'unknown'}) have no way to be applied again`,
    };
  try {
    await reapply(msg, letter);
  } catch (err) {
    return { ...letter, outcome: 'failed', error: (err as Error).message };
  }
  await removeStoredMessage(nats, 'deadLetter', letter.id);
  return { ...letter, outcome: 'applied' };
}

const sourceKey = (stream: string | null, consumer: string | null) => `${stream}\u0000${consumer}`;

/**
 * The consumers whose dead letters can be applied again, and how. INGEST's telemetry
 * projection applies the letter the way its live apply would have, the first time: a
 * dead-lettered message was never applied (its transaction never committed), so the usage of
 * the rows it creates is counted (only rows it creates: a second retry counts nothing) and its
 * spans' evaluations are scheduled (once per evaluator and span, whatever is retried). Its
 * sequence is recorded as applied, so the watermark and `spanlog verify` see it.
 */
function reapplyPaths(ds: DataSource, nats: NatsResources): Map<string, Reapply> {
  const chunks = new ChunkReader(nats.js, nats.layout);
  const prices = new ProjectPriceTables(ds);
  const telemetry = telemetryPosition(nats);
  return new Map<string, Reapply>([
    [
      sourceKey(telemetry.stream, nats.layout.consumerName(telemetryProjection.source.consumer)),
      async (msg, letter) => {
        if (letter.seq === null) throw new Error('the dead letter does not say which INGEST sequence it was');
        const decoded = await telemetryProjection.decode({ seq: letter.seq, headers: msg.headers, data: msg.data }, { chunks });
        await applyTelemetryBatch(ds, telemetry, await telemetryProjection.prepare([decoded], { prices }), {
          scheduleEvaluations: true,
          countUsage: true,
        });
      },
    ],
  ]);
}
