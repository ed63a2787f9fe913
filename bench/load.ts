import autocannon from 'autocannon';
import { type Payload, takeRequestNumber } from './payloads';
import { type RssSampler, sampleRss } from './process-stats';

export interface LoadOptions {
  baseUrl: string;
  payload: Payload;
  apiKey?: string;
  connections: number;
  durationS: number;
  /** Requests per second over all connections; absent means as fast as answers come. */
  overallRate?: number;
  /** A process whose resident memory is sampled during the run. */
  rssPid?: number | null;
  /** Called with the request number of every request answered 2xx. */
  onAccepted?: (n: number) => void;
}

export interface LoadFigures {
  connections: number;
  durationS: number;
  /** Answered with 2xx: what counts as accepted. */
  ok: number;
  failed: number;
  requestsPerS: number;
  itemsPerS: number;
  p50Ms: number;
  p99Ms: number;
  /** Largest resident set of the sampled process, in MB. */
  rssMaxMb: number | null;
  statusCodes: Record<string, number>;
}

/** One autocannon run whose every request carries new ids (see payloads.ts). */
async function fire(o: LoadOptions, durationS: number): Promise<autocannon.Result> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;
  let accepted = 0;
  const options: autocannon.Options = {
    url: o.baseUrl,
    connections: o.connections,
    duration: durationS,
    overallRate: o.overallRate,
    timeout: 30,
    requests: [
      {
        method: 'POST',
        path: o.payload.path,
        headers,
        // With one request in flight per connection, a connection's context is that of the
        // request whose answer arrives: autocannon builds the next one only after recording it.
        setupRequest: (req, context: RequestContext) => {
          context.n = takeRequestNumber();
          return { ...req, body: o.payload.render(context.n) };
        },
        onResponse: (status, _body, context: RequestContext) => {
          if (status >= 200 && status < 300 && context.n !== undefined) {
            accepted++;
            o.onAccepted?.(context.n);
          }
        },
      },
    ],
  };
  const result = await new Promise<autocannon.Result>(
    (resolve, reject) => void autocannon(options, (err, r) => (err ? reject(err) : resolve(r))),
  );
  if (accepted !== result['2xx'])
    throw new Error(`the load generator tracked ${accepted} accepted requests of ${result['2xx']}: it cannot tell which spans to count`);
  return result;
}

interface RequestContext {
  n?: number;
}

/**
 * Runs a short warm-up (JIT, connection pools, first stream writes), then the measured
 * run; only the latter is reported.
 */
export async function runLoad(o: LoadOptions, warmupS = 2): Promise<LoadFigures> {
  if (warmupS > 0) await fire(o, warmupS);
  const rss: RssSampler | null = o.rssPid ? sampleRss(o.rssPid) : null;
  const result = await fire(o, o.durationS).finally(() => rss?.stop());
  const seconds = result.duration;
  const ok = result['2xx'];
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = count ?? 0;
  return {
    connections: o.connections,
    durationS: seconds,
    ok,
    failed: result.non2xx + result.errors + result.timeouts,
    requestsPerS: ok / seconds,
    itemsPerS: (ok * o.payload.items) / seconds,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    rssMaxMb: rss ? rss.maxMb() : null,
    statusCodes,
  };
}
