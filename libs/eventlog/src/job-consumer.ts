import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, JetStreamManager, JsMsg } from 'nats';
import type { Counter } from 'prom-client';
import { PermanentMessageError } from './consumer';
import { durableRoute } from './projection-runner';
import { type DeadLetterRoute, appliedCounter, deadLetter, ensureDurableConsumer, errorText, onFailure } from './dead-letter';
import type { NatsResources } from './nats-resources';
import type { StreamKey } from './streams';

/** Named and dead-lettered as every consumer is (DeadLetterRoute), with the stream manager to create the consumer. */
export interface JobConsumerOptions<T> extends DeadLetterRoute {
  jsm: JetStreamManager;
  /** Turns a message into a job; throws PermanentMessageError for a message that can never run. */
  decode(msg: JsMsg): Promise<T>;
  /**
   * Runs one job; its message is acked once this resolves. `signal` aborts when the consumer
   * stops with the job still running: it should then reject, and the job is handed back.
   */
  run(job: T, signal: AbortSignal): Promise<void>;
  /** Whether the store is reachable: an outage must not count against a message's deliveries. */
  isHealthy(): Promise<boolean>;
  /** Jobs running at once, at most. */
  maxInHand: number;
  /** Deliveries before a failing message is dead-lettered. */
  maxDeliveries?: number;
  /** How long an unacked message stays with one instance; a job still running is kept alive. */
  ackWaitMs?: number;
  /** How long `stop` lets running jobs finish before it aborts them. */
  stopGraceMs?: number;
}

/**
 * A durable pull consumer for independent jobs that may take long (a webhook call can take
 * minutes): each job runs as soon as it is fetched and is acked when it is done, and fetching
 * goes on while jobs run, up to `maxInHand`. So no job waits for another, unlike a projection
 * (PullConsumerRunner), whose batches must be applied one at a time. A failing job is retried
 * with backoff and dead-lettered after `maxDeliveries`; while the store is down nothing is.
 */
export class JobConsumer<T> {
  private stopping = false;
  private loop: Promise<void> | null = null;
  /** Each message in hand, with its job's settlement. */
  private readonly inHand = new Map<JsMsg, Promise<void>>();
  private readonly aborter = new AbortController();
  private heartbeat: NodeJS.Timeout | null = null;
  private wakeLoop: (() => void) | null = null;
  private readonly maxDeliveries: number;
  private readonly ackWaitMs: number;
  private readonly stopGraceMs: number;
  private readonly applied: Counter.Internal;

  constructor(private readonly o: JobConsumerOptions<T>) {
    this.maxDeliveries = o.maxDeliveries ?? 5;
    this.ackWaitMs = o.ackWaitMs ?? 10_000;
    this.stopGraceMs = o.stopGraceMs ?? 5_000;
    this.applied = appliedCounter(o);
  }

  async start(): Promise<void> {
    await ensureDurableConsumer(this.o.jsm, this.o.stream, this.o.durable, this.ackWaitMs);
    // One timer for every message in hand: each job may run far longer than the ack wait.
    this.heartbeat = setInterval(() => {
      for (const msg of this.inHand.keys()) msg.working();
    }, this.ackWaitMs / 3);
    this.loop = this.run();
  }

  /**
   * Stops fetching and lets the running jobs finish for up to `stopGraceMs`; those still
   * running then are aborted and handed back, for another instance to run.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeLoop?.();
    await this.loop;
    const settled = Promise.all(this.inHand.values());
    const grace = sleep(this.stopGraceMs, 'late', { ref: false });
    if ((await Promise.race([settled, grace])) === 'late') this.aborter.abort(new Error('the evaluation worker is stopping'));
    await settled;
    if (this.heartbeat) clearInterval(this.heartbeat);
  }

  private async run(): Promise<void> {
    const consumer = await this.o.js.consumers.get(this.o.stream, this.o.durable);
    while (!this.stopping) {
      const room = this.o.maxInHand - this.inHand.size;
      if (room <= 0) {
        await new Promise<void>((resolve) => (this.wakeLoop = resolve));
        this.wakeLoop = null;
        continue;
      }
      for (const msg of await this.fetch(consumer, room)) this.inHand.set(msg, this.handle(msg));
    }
  }

  /**
   * Asks for what is waiting, up to `room`: a fetch returns once it has all it asked for or
   * its wait ran out, so asking for more than is there would hold a lone job back for the
   * whole wait. With nothing waiting it asks for one and returns when it arrives.
   */
  private async fetch(consumer: Consumer, room: number): Promise<JsMsg[]> {
    const msgs: JsMsg[] = [];
    try {
      const waiting = (await consumer.info()).num_pending;
      const iter = await consumer.fetch({ max_messages: Math.min(room, Math.max(1, waiting)), expires: 1_000 });
      for await (const m of iter) msgs.push(m);
    } catch (err) {
      this.o.logger.warn({ err: errorText(err) }, 'fetch failed; retrying');
      for (const m of msgs) m.nak();
      await sleep(500);
      return [];
    }
    return msgs;
  }

  /** Runs one message's job to its end: acked, retried later, handed back or dead-lettered. Never rejects. */
  private async handle(msg: JsMsg): Promise<void> {
    try {
      let job: T;
      try {
        job = await this.o.decode(msg);
      } catch (err) {
        if (err instanceof PermanentMessageError) return await deadLetter(this.o, msg, err.message);
        throw err;
      }
      await this.o.run(job, this.aborter.signal);
      msg.ack();
      this.applied.inc();
    } catch (err) {
      await this.failed(msg, err);
    } finally {
      this.inHand.delete(msg);
      this.wakeLoop?.();
    }
  }

  private async failed(msg: JsMsg, err: unknown): Promise<void> {
    try {
      if (this.aborter.signal.aborted) {
        msg.nak();
      } else if (!(await this.o.isHealthy())) {
        this.o.logger.warn({ seq: msg.seq, err: errorText(err) }, 'store unavailable; job will be redelivered');
        msg.nak(2_000);
      } else {
        await onFailure(this.o, msg, err, this.maxDeliveries);
      }
    } catch (unexpected) {
      // The message stays unacked and comes back after the ack wait.
      this.o.logger.error({ seq: msg.seq, err: errorText(unexpected) }, 'could not settle a failed job');
    }
  }
}

export interface JobConsumerRunnerOptions<T> extends Pick<JobConsumerOptions<T>, 'logger' | 'decode' | 'run' | 'isHealthy' | 'maxInHand'> {
  stream: StreamKey;
  /** Durable consumer name without the stream prefix (CONSUMERS). */
  consumer: string;
}

/** A job consumer on one stream, named and dead-lettered the way projections are (projectionRunner). */
export function jobConsumer<T>(nats: NatsResources, o: JobConsumerRunnerOptions<T>): JobConsumer<T> {
  return new JobConsumer<T>({
    ...durableRoute(nats, o.stream, o.consumer, o.logger),
    decode: o.decode,
    run: o.run,
    isHealthy: o.isHealthy,
    maxInHand: o.maxInHand,
  });
}
