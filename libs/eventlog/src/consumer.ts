import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, JetStreamManager, JsMsg } from 'nats';
import type { Counter } from 'prom-client';
import { type DeadLetterRoute, appliedCounter, deadLetter, ensureDurableConsumer, errorText, onFailure, retryLater } from './dead-letter';

export { redeliveryDelayMs } from './dead-letter';

/** A message that can never be applied (bad envelope, unknown schema): dead-letter it at once. */
export class PermanentMessageError extends Error {}

export interface DeadLetterTarget {
  subject: string;
}

/** Named and dead-lettered as every consumer is (DeadLetterRoute), with the stream manager to create the consumer. */
export interface PullConsumerOptions<T, B = T[]> extends DeadLetterRoute {
  jsm: JetStreamManager;
  /** Turns a message into what `apply` takes; throws PermanentMessageError for bad messages. */
  decode(msg: JsMsg): Promise<T>;
  /**
   * Turns decoded messages into one batch for `apply`, while the previous batch is still
   * being applied: work done here is off the store's critical path, as long as it lets the
   * event loop turn now and then (the applying batch's statements are sent from it). Pure;
   * the default is the list.
   */
  prepare?(items: T[]): B | Promise<B>;
  /** Applies a batch atomically; only after it resolves are its messages acked. */
  apply(batch: B): Promise<void>;
  /** Whether the store is reachable: an outage must not count against a message's deliveries. */
  isHealthy(): Promise<boolean>;
  /** Most messages applied in one call (one transaction). */
  batchSize?: number;
  /**
   * Batches applied at once, each in its own transaction (default 1). Only for an `apply` that
   * is order-insensitive, as one with several instances on the same consumer must be anyway:
   * the store then works on as many batches as it has cores while this process prepares the next.
   */
  lanes?: number;
  /** A batch that must see every earlier one committed and be committed before any later one starts (a deletion, say). */
  applyAlone?(batch: B): boolean;
  /** A failure of a whole batch that applying it again may not meet (two transactions in a deadlock): the batch is tried again as it is. */
  retryBatchOn?(err: unknown): boolean;
  /** Deliveries before a failing message is dead-lettered. */
  maxDeliveries?: number;
  /**
   * How long an unacked message stays with one instance. Short, so a killed instance's
   * messages go to the others quickly; a batch still being worked on is kept alive.
   */
  ackWaitMs?: number;
}

/**
 * Messages per batch. A batch is one transaction: the store's throughput hardly grows past
 * a few thousand rows per statement, while a larger batch makes a stop, a redelivery and
 * the first read of a burst wait longer (64 OTLP exports of 100 spans ≈ 1 s of work).
 */
export const DEFAULT_BATCH_SIZE = 64;

/** Tries of a whole batch whose failure `retryBatchOn` calls passing, before its messages are applied one by one. */
const BATCH_ATTEMPTS = 3;

/**
 * One durable pull consumer: fetch a batch, apply it in one go, ack after commit. A failing
 * batch is retried message by message so one bad message cannot hold the others back; a
 * message that keeps failing while the store is healthy goes to the dead-letter stream.
 * Several processes may run the same consumer; JetStream shares the messages out.
 *
 * The next batch is fetched and decoded while the store commits the previous ones, so this
 * process and the store work at the same time instead of taking turns. Batches are applied
 * one at a time and in order, or `lanes` at a time where the apply allows it, a batch that
 * must be applied alone (`applyAlone`) waiting for all before it and holding back all after it.
 */
export class PullConsumerRunner<T, B = T[]> {
  private stopping = false;
  private loop: Promise<void> | null = null;
  private readonly batchSize: number;
  private readonly maxDeliveries: number;
  private readonly ackWaitMs: number;
  private readonly lanes: number;

  private readonly prepare: (items: T[]) => B | Promise<B>;
  private readonly applied: Counter.Internal;

  constructor(private readonly o: PullConsumerOptions<T, B>) {
    this.prepare = o.prepare ?? ((items) => items as unknown as B);
    this.batchSize = o.batchSize ?? DEFAULT_BATCH_SIZE;
    this.maxDeliveries = o.maxDeliveries ?? 5;
    this.ackWaitMs = o.ackWaitMs ?? 10_000;
    this.lanes = Math.max(1, o.lanes ?? 1);
    this.applied = appliedCounter(o);
  }

  async start(): Promise<void> {
    await this.ensureConsumer();
    this.loop = this.run();
  }

  /** Stops fetching; the batches in hand (one being applied, one fetched meanwhile) are applied and acked. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop;
  }

  private ensureConsumer(): Promise<void> {
    return ensureDurableConsumer(this.o.jsm, this.o.stream, this.o.durable, this.ackWaitMs);
  }

  private async run(): Promise<void> {
    const consumer = await this.o.js.consumers.get(this.o.stream, this.o.durable);
    const applying = new Set<Promise<void>>();
    // A batch applied alone that later ones wait for; the next batch is still fetched and prepared meanwhile.
    let alone: Promise<void> | null = null;
    while (!this.stopping) {
      const msgs = await this.fetchBatch(consumer);
      if (!msgs.length) continue;
      const heartbeat = this.keepAlive(msgs);
      const decoded = await this.decodeAll(msgs);
      const batch = await this.prepareAll(decoded);
      // A batch that failed to prepare is applied message by message: alone too, to be safe.
      const goesAlone = batch === null || (this.o.applyAlone?.(batch) ?? false);
      await alone;
      while (applying.size >= (goesAlone ? 1 : this.lanes)) await Promise.race(applying);
      const done: Promise<void> = this.applyDecoded(decoded, batch)
        .catch((err: unknown) => this.o.logger.error({ err: errorText(err) }, 'batch failed unexpectedly; it will be redelivered'))
        .finally(() => {
          heartbeat();
          applying.delete(done);
        });
      applying.add(done);
      alone = goesAlone ? done : null;
    }
    await Promise.all(applying);
  }

  /**
   * Asks for what is waiting, up to a batch: a fetch returns only once it has all it asked
   * for or its wait ran out, so asking for more than is there would hold a lone message
   * back for the whole wait. With nothing waiting it asks for one and returns on arrival.
   */
  private async fetchBatch(consumer: Consumer): Promise<JsMsg[]> {
    const msgs: JsMsg[] = [];
    try {
      const waiting = (await consumer.info()).num_pending;
      const iter = await consumer.fetch({ max_messages: Math.min(this.batchSize, Math.max(1, waiting)), expires: 1_000 });
      for await (const m of iter) msgs.push(m);
    } catch (err) {
      this.o.logger.warn({ err: String(err) }, 'fetch failed; retrying');
      for (const m of msgs) m.nak();
      await sleep(500);
      return [];
    }
    return msgs;
  }

  /**
   * Tells the server the messages are still being worked on, from fetch to ack, so a batch
   * waiting for the previous commit or in a slow commit is not redelivered meanwhile.
   * Returns the function that stops it.
   */
  private keepAlive(msgs: JsMsg[]): () => void {
    const timer = setInterval(() => {
      // A no-op on messages already acked, nakked or termed.
      for (const m of msgs) m.working();
    }, this.ackWaitMs / 3);
    return () => clearInterval(timer);
  }

  /**
   * Decodes each message; what cannot be decoded is dead-lettered or retried right away.
   * The event loop turns between messages: this runs while the previous batch is applied,
   * whose statements must not wait for a whole batch's decoding to be sent.
   */
  private async decodeAll(msgs: JsMsg[]): Promise<{ msg: JsMsg; item: T }[]> {
    const decoded: { msg: JsMsg; item: T }[] = [];
    for (const msg of msgs) {
      await setImmediate();
      try {
        decoded.push({ msg, item: await this.o.decode(msg) });
      } catch (err) {
        if (err instanceof PermanentMessageError) await this.deadLetter(msg, err.message);
        else this.retryLater(msg, err);
      }
    }
    return decoded;
  }

  /** The batch for `apply`; null when preparing it failed, and then each message is prepared and applied alone. */
  private async prepareAll(decoded: { msg: JsMsg; item: T }[]): Promise<B | null> {
    try {
      return await this.prepare(decoded.map((d) => d.item));
    } catch (err) {
      this.o.logger.warn({ err: errorText(err) }, 'preparing a batch failed; applying its messages one by one');
      return null;
    }
  }

  private async applyDecoded(decoded: { msg: JsMsg; item: T }[], batch: B | null): Promise<void> {
    if (!decoded.length) return;
    if (batch !== null) {
      for (let attempt = 1; ; attempt++) {
        try {
          await this.o.apply(batch);
          for (const d of decoded) d.msg.ack();
          this.applied.inc(decoded.length);
          return;
        } catch (err) {
          if (!(await this.o.isHealthy())) {
            this.o.logger.warn({ err: String(err) }, 'store unavailable; batch will be redelivered');
            for (const d of decoded) d.msg.nak(2_000);
            await sleep(1_000);
            return;
          }
          if (attempt < BATCH_ATTEMPTS && this.o.retryBatchOn?.(err)) {
            this.o.logger.warn({ err: errorText(err), attempt }, 'batch met a conflict with another; applying it again');
            continue;
          }
          if (decoded.length === 1) return this.onFailure(decoded[0].msg, err);
          break;
        }
      }
    }
    // Isolate the message at fault: apply one by one, so the others still go through.
    for (const d of decoded) {
      try {
        await this.o.apply(await this.prepare([d.item]));
        d.msg.ack();
        this.applied.inc(1);
      } catch (err) {
        await this.onFailure(d.msg, err);
      }
    }
  }

  private onFailure(msg: JsMsg, err: unknown): Promise<void> {
    return onFailure(this.o, msg, err, this.maxDeliveries);
  }

  private retryLater(msg: JsMsg, err: unknown): void {
    retryLater(this.o, msg, err);
  }

  private deadLetter(msg: JsMsg, reason: string): Promise<void> {
    return deadLetter(this.o, msg, reason);
  }
}
