import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { attrs, exportOf, span } from '@app/otlp/testing/otlp-builders';

/**
 * Clients sending spans while the suite breaks things: every request is numbered, its span
 * keys follow from its number, and only a 2xx counts as acknowledged. A failed request is
 * retried with the same body: its content-derived message ids are what must keep the retry
 * of a request that was stored but not answered from storing it twice. Hundreds of thousands
 * of spans are acknowledged per scenario, so the generator keeps request numbers, not keys.
 */

export interface LoadOptions {
  baseUrl: string;
  apiKey: string;
  /** Names every span this load sends, so runs and scenarios never share a key. */
  prefix: string;
  workers?: number;
  spansPerRequest?: number;
  /** Spans per second over all workers; absent: as fast as answers come. */
  spansPerS?: number;
}

export interface LoadReport {
  /** Spans of every request sent at least once. */
  sent: number;
  /** Spans whose request was answered 2xx. */
  acknowledged: number;
  /** The acknowledged spans' keys (native external ids and OTLP span ids), a request at a time. */
  keys(): Iterable<string[]>;
  /** Answers by status (`201`, `503`, …) or transport failure (`ECONNREFUSED`, …), counted per attempt. */
  statuses: Record<string, number>;
}

/** SPEC 7.4: at most 3 retries, 1 s, 2 s, 4 s apart: long enough to outlast a restart of the API. */
const RETRIES = 3;
const RETRY_BASE_MS = 1_000;
const DEFAULT_SPANS_PER_REQUEST = 100;

const hex = (text: string, length: number) => createHash('sha256').update(text).digest('hex').slice(0, length);

/** Odd requests are OTLP (keyed by span id), even ones native (keyed by external id). */
export function spanKeys(prefix: string, n: number, spans: number): string[] {
  const seed = `${prefix}-${n}`;
  return n % 2 === 0
    ? Array.from({ length: spans }, (_, s) => `${seed}-s${s}`)
    : Array.from({ length: spans }, (_, s) => hex(`${seed}-s${s}`, 16));
}

/** Request `n`'s path and body: one trace whose spans carry `spanKeys(prefix, n, spans)`. */
export function requestOf(prefix: string, n: number, spans: number): { path: string; body: string } {
  const seed = `${prefix}-${n}`;
  const keys = spanKeys(prefix, n, spans);
  if (n % 2 === 0) {
    const at = new Date().toISOString();
    const traceId = `${seed}-t`;
    const batch = [
      { id: `${traceId}-e`, type: 'trace-create', timestamp: at, body: { id: traceId, name: `trace ${n}` } },
      ...keys.map((id, s) => ({
        id: `${id}-e`,
        type: 'span-create',
        timestamp: at,
        body: { id, traceId, name: `span ${s}`, startTime: at, input: { n: s } },
      })),
    ];
    return { path: '/api/v1/traces', body: JSON.stringify({ batch }) };
  }
  const traceId = hex(seed, 32);
  const otlp = exportOf(
    keys.map((spanId, s) =>
      span({ traceId, spanId, parentSpanId: s === 0 ? '' : keys[0], name: `step ${s}`, attributes: attrs({ n: s }) }),
    ),
  );
  return { path: '/api/v1/otel/traces', body: JSON.stringify(otlp) };
}

/** The failure a client sees when no HTTP answer arrives: the socket error's code. */
function transportFailure(err: unknown): string {
  const cause = (err as { cause?: { code?: string } }).cause;
  return cause?.code ?? (err as Error).name;
}

export class LoadGenerator {
  private next = 0;
  private sent = 0;
  private stopping = false;
  private readonly acknowledgedRequests: number[] = [];
  private readonly statuses: Record<string, number> = {};
  private slowestAck = 0;
  private workers: Promise<void>[] = [];
  private readonly spans: number;
  /** Request `from` was due at `at`; the ones after it follow at `spansPerS`, none when null. */
  private pace: { at: number; from: number; spansPerS: number } | null = null;

  constructor(private readonly o: LoadOptions) {
    this.spans = o.spansPerRequest ?? DEFAULT_SPANS_PER_REQUEST;
  }

  /** From now on, `spansPerS` spans per second over all workers; null: as fast as answers come. */
  setRate(spansPerS: number | null): void {
    this.pace = spansPerS === null ? null : { at: performance.now(), from: this.next, spansPerS };
  }

  get acknowledgedCount(): number {
    return this.acknowledgedRequests.length * this.spans;
  }

  /** The longest an acknowledged attempt waited for its answer: what a fault cost a client that did not give up. */
  get slowestAcknowledgedMs(): number {
    return this.slowestAck;
  }

  /** How many attempts got this answer (a status or a transport failure) so far. */
  answers(outcome: string): number {
    return this.statuses[outcome] ?? 0;
  }

  start(): void {
    this.setRate(this.o.spansPerS ?? null);
    this.workers = Array.from({ length: this.o.workers ?? 8 }, () => this.work());
  }

  /** Lets every request in hand finish (retries included), then reports. */
  async stop(): Promise<LoadReport> {
    this.stopping = true;
    await Promise.all(this.workers);
    const { prefix } = this.o;
    const spans = this.spans;
    const requests = [...this.acknowledgedRequests];
    return {
      sent: this.sent,
      acknowledged: requests.length * spans,
      keys: function* () {
        for (const n of requests) yield spanKeys(prefix, n, spans);
      },
      statuses: { ...this.statuses },
    };
  }

  /** Resolves once `more` further spans are acknowledged: the service is taking load again. */
  async progressed(more: number, timeoutMs = 60_000): Promise<void> {
    await this.reached(this.acknowledgedCount + more, timeoutMs);
  }

  /** Resolves once `total` spans are acknowledged in all. */
  async reached(total: number, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.acknowledgedCount < total) {
      if (Date.now() > deadline)
        throw new Error(`load stalled at ${this.acknowledgedCount} acknowledged spans; answers so far: ${JSON.stringify(this.statuses)}`);
      await sleep(50);
    }
  }

  private async work(): Promise<void> {
    while (!this.stopping) {
      const n = this.next++;
      if (this.pace) {
        // Each request has its due time: a steady rate that catches up after a stall.
        const due = this.pace.at + (((n - this.pace.from) * this.spans) / this.pace.spansPerS) * 1_000;
        if (due > performance.now()) await sleep(due - performance.now());
        if (this.stopping) return;
      }
      const request = requestOf(this.o.prefix, n, this.spans);
      this.sent += this.spans;
      for (let attempt = 0; !(await this.send(n, request)) && attempt < RETRIES; attempt++) {
        await sleep(RETRY_BASE_MS * 2 ** attempt);
      }
    }
  }

  /** One attempt; true when acknowledged. */
  private async send(n: number, { path, body }: { path: string; body: string }): Promise<boolean> {
    let outcome: string;
    const sentAt = performance.now();
    try {
      const res = await fetch(`${this.o.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.o.apiKey}`, 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(30_000),
      });
      await res.arrayBuffer();
      outcome = String(res.status);
      if (res.ok) {
        this.acknowledgedRequests.push(n);
        this.slowestAck = Math.max(this.slowestAck, performance.now() - sentAt);
      }
    } catch (err) {
      outcome = transportFailure(err);
    }
    this.statuses[outcome] = (this.statuses[outcome] ?? 0) + 1;
    return outcome.startsWith('2');
  }
}

/** Two loads of one tenant judged together. */
export function mergeReports(a: LoadReport, b: LoadReport): LoadReport {
  const statuses = { ...a.statuses };
  for (const [outcome, n] of Object.entries(b.statuses)) statuses[outcome] = (statuses[outcome] ?? 0) + n;
  return {
    sent: a.sent + b.sent,
    acknowledged: a.acknowledged + b.acknowledged,
    keys: function* () {
      yield* a.keys();
      yield* b.keys();
    },
    statuses,
  };
}
