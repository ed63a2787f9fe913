import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError, READ_YOUR_WRITES_WAIT_MS, type SeqToken, SeqTokenCodec } from '@app/domain';
import { NatsResources } from '@app/eventlog';
import { ProjectionCheckpoints, type ProjectionPosition } from '@app/persistence';
import { telemetryPosition } from '@app/projections';

const POLL_MS = 25;

export const VISIBLE_SEQ_HEADER = 'Spanlog-Visible-Seq';

/**
 * Read-your-writes (CONTRACT): a read given a sequence token waits until the telemetry
 * projection's applied watermark — recorded with the rows, every message at or below it
 * applied — reaches that sequence. Never the consumer's ack floor, which a purge can move
 * past messages that were never applied. The watermark is read where the reads go
 * (`ProjectionCheckpoints` over READ_DB): on a read replica its copy of the checkpoint arrives
 * in the same WAL as the rows it covers, so a read that passed the wait sees them; the
 * primary's would run ahead of what the replica shows.
 */
@Injectable()
export class VisibilityService {
  private cached: { at: number; seq: Promise<number> } | null = null;
  private readonly position: ProjectionPosition;

  constructor(
    private readonly checkpoints: ProjectionCheckpoints,
    private readonly tokens: SeqTokenCodec,
    nats: NatsResources,
  ) {
    this.position = telemetryPosition(nats);
  }

  parseToken(raw: string | undefined): SeqToken | null {
    if (raw === undefined || raw === '') return null;
    const token = this.tokens.decode(raw);
    if (!token) throw new DomainError('VALIDATION_ERROR', 'minSeq: not a Spanlog-Seq token');
    return token;
  }

  /** Waits until `token` is visible; returns the visible token for `Spanlog-Visible-Seq`. */
  async waitFor(token: SeqToken | null): Promise<string> {
    const deadline = Date.now() + READ_YOUR_WRITES_WAIT_MS;
    for (;;) {
      const visible = await this.visibleSeq();
      if (!token || visible >= token.seq) return this.tokens.encode({ stream: 'ingest', seq: visible });
      if (Date.now() >= deadline) {
        throw new DomainError(
          'NOT_YET_VISIBLE',
          `the data of ${this.tokens.encode(token)} is not visible yet (visible up to ${this.tokens.encode({ stream: 'ingest', seq: visible })}); retry shortly`,
          { 'Retry-After': '1' },
        );
      }
      await sleep(POLL_MS);
    }
  }

  /** Waits for a REST read's `minSeq` and names what is visible in `Spanlog-Visible-Seq`. */
  async awaitRead(minSeq: string | undefined, reply: FastifyReply): Promise<void> {
    void reply.header(VISIBLE_SEQ_HEADER, await this.waitFor(this.parseToken(minSeq)));
  }

  /** Shared by concurrent readers for a poll interval, so waiting readers cost one request per interval. */
  private visibleSeq(): Promise<number> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at >= POLL_MS) {
      const seq = this.fetchWatermark();
      this.cached = { at: now, seq };
      seq.catch(() => (this.cached = null));
    }
    return this.cached.seq;
  }

  private async fetchWatermark(): Promise<number> {
    try {
      return await this.checkpoints.appliedThrough(this.position);
    } catch {
      throw new DomainError('SERVICE_UNAVAILABLE', 'the database is not reachable; retry shortly', { 'Retry-After': '1' });
    }
  }
}
