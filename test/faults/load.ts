import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { attrs, exportOf, span } from '@app/otlp/testing/otlp-builders';
import { nativeBatch } from '../support/factories';

/**
 * Clients sending spans while the suite breaks things: every request is numbered, its span
 * keys are known before it is sent, and only a 2xx counts as acknowledged. A failed request
 * is retried with the same body: its content-derived message ids are what must keep the
 * retry of a request that was stored but not answered from storing it twice.
 */

export interface LoadOptions {
  baseUrl: string;
  apiKey: string;
  /** Names every span this load sends, so runs and scenarios never share a key. */
  prefix: string;
  workers?: number;
  spansPerRequest?: number;
}

export interface LoadReport {
  /** Spans of every request sent at least once. */
  sent: number;
  /** Keys of the spans whose request was answered 2xx: native external ids and OTLP span ids. */
  acknowledged: Set<string>;
  /** Answers by status (`201`, `503`, …) or transport failure (`ECONNREFUSED`, …), counted per attempt. */
  statuses: Record<string, number>;
}

/** SPEC 7.4: at most 3 retries, 1 s, 2 s, 4 s apart: long enough to outlast a restart of the API. */
const RETRIES = 3;
const RETRY_BASE_MS = 1_000;

/** A request and the span keys it carries; odd requests are OTLP, even ones native. */
interface Planned {
  path: string;
  body: string;
  keys: string[];
}

function plan(prefix: string, n: number, spans: number): Planned {
  const seed = `${prefix}-${n}`;
  if (n % 2 === 0) {
    const body = nativeBatch(1, spans, seed);
    const keys = body.batch.filter((e) => e.type === 'span-create').map((e) => e.body.id as string);
    return { path: '/api/v1/traces', body: JSON.stringify(body), keys };
  }
  const hex = (text: string, length: number) => createHash('sha256').update(text).digest('hex').slice(0, length);
  const traceId = hex(seed, 32);
  const keys = Array.from({ length: spans }, (_, s) => hex(`${seed}-s${s}`, 16));
  const otlp = exportOf(keys.map((spanId, s) => span({ traceId, spanId, parentSpanId: s === 0 ? '' : keys[0], name: `step ${s}`, attributes: attrs({ n: s }) })));
  return { path: '/api/v1/otel/traces', body: JSON.stringify(otlp), keys };
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
  private readonly acknowledged = new Set<string>();
  private readonly statuses: Record<string, number> = {};
  private workers: Promise<void>[] = [];
  private readonly spans: number;

  constructor(private readonly o: LoadOptions) {
    this.spans = o.spansPerRequest ?? 10;
  }

  get acknowledgedCount(): number {
    return this.acknowledged.size;
  }

  /** How many attempts got this answer (a status or a transport failure) so far. */
  answers(outcome: string): number {
    return this.statuses[outcome] ?? 0;
  }

  start(): void {
    this.workers = Array.from({ length: this.o.workers ?? 4 }, () => this.work());
  }

  /** Lets every request in hand finish (retries included), then reports. */
  async stop(): Promise<LoadReport> {
    this.stopping = true;
    await Promise.all(this.workers);
    return { sent: this.sent, acknowledged: new Set(this.acknowledged), statuses: { ...this.statuses } };
  }

  /** Resolves once `more` further spans are acknowledged: the service is taking load again. */
  async progressed(more: number, timeoutMs = 60_000): Promise<void> {
    const target = this.acknowledged.size + more;
    const deadline = Date.now() + timeoutMs;
    while (this.acknowledged.size < target) {
      if (Date.now() > deadline) throw new Error(`load stalled at ${this.acknowledged.size} acknowledged spans; answers so far: ${JSON.stringify(this.statuses)}`);
      await sleep(50);
    }
  }

  private async work(): Promise<void> {
    while (!this.stopping) {
      const request = plan(this.o.prefix, this.next++, this.spans);
      this.sent += request.keys.length;
      for (let attempt = 0; !(await this.send(request)) && attempt < RETRIES; attempt++) {
        await sleep(RETRY_BASE_MS * 2 ** attempt);
      }
    }
  }

  /** One attempt; true when acknowledged. */
  private async send({ path, body, keys }: Planned): Promise<boolean> {
    let outcome: string;
    try {
      const res = await fetch(`${this.o.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.o.apiKey}`, 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(30_000),
      });
      await res.arrayBuffer();
      outcome = String(res.status);
      if (res.ok) for (const key of keys) this.acknowledged.add(key);
    } catch (err) {
      outcome = transportFailure(err);
    }
    this.statuses[outcome] = (this.statuses[outcome] ?? 0) + 1;
    return outcome.startsWith('2');
  }
}
