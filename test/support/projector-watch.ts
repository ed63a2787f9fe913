import { setTimeout as sleep } from 'node:timers/promises';
import type { JetStreamManager } from 'nats';
import { CONSUMERS, StreamLayout } from '@app/eventlog';

export interface ProjectorProgress {
  /** Last stream sequence handed to the processor. */
  delivered: number;
  /** Every message at or below it was acked, or skipped by the server: no proof that it was applied. */
  ackFloor: number;
  /** Messages the consumer has yet to deliver or to see acked. */
  backlog: number;
}

/**
 * The INGEST projector's durable consumer, as the server sees it. Only a hint of when to
 * count rows: on nats-server 2.9.10 a filtered purge moves the consumer past messages it
 * never delivered, which then count as acked (issue 12). What is applied is counted in rows (rows.ts).
 */
export class ProjectorWatch {
  private readonly layout: StreamLayout;
  private readonly stream: string;
  private readonly durable: string;

  constructor(
    private readonly jsm: JetStreamManager,
    prefix: string,
  ) {
    this.layout = new StreamLayout(prefix);
    this.stream = this.layout.streamName('ingest');
    this.durable = this.layout.consumerName(CONSUMERS.ingestProjector);
  }

  async progress(): Promise<ProjectorProgress> {
    const info = await this.jsm.consumers.info(this.stream, this.durable);
    return { delivered: info.delivered.stream_seq, ackFloor: info.ack_floor.stream_seq, backlog: info.num_pending + info.num_ack_pending };
  }

  async lastSeq(): Promise<number> {
    return (await this.jsm.streams.info(this.stream)).state.last_seq;
  }

  /** Waits until the consumer has nothing left to deliver or to see acked; false when `timeoutMs` passed first. */
  async drained(timeoutMs: number, pollMs = 100): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if ((await this.progress()).backlog === 0) return true;
      if (Date.now() > deadline) return false;
      await sleep(pollMs);
    }
  }

  /**
   * Drops what the processor has not applied yet, so the next stage starts without a
   * backlog it did not make (the consumer's ack floor jumps past the purged messages).
   * Returns how many messages were left.
   */
  async purge(): Promise<number> {
    const { backlog } = await this.progress();
    await this.jsm.streams.purge(this.stream);
    return backlog;
  }

  /** Messages the processor gave up on: a correct run has none. */
  async deadLettered(): Promise<number> {
    return (await this.jsm.streams.info(this.layout.streamName('deadLetter'))).state.messages;
  }
}
