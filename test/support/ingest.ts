import { randomBytes, randomUUID } from 'node:crypto';
import { type NatsConnection, headers as natsHeaders } from 'nats';
import { INGEST_SCHEMAS, envelopeToHeaders } from '@app/domain';
import { exportOf, span } from '@app/otlp/testing/otlp-builders';
import type { Tenant } from './api';
import { OPENAPI_CHECK, checkAnswer } from './openapi-check';
import type { Stack } from './stack';

/**
 * Publishes `data` straight to the stack's INGEST stream as the API would publish a native batch
 * of the tenant's project, with `extraHeaders` over the envelope's; returns its sequence.
 */
export async function publishToIngest(
  nc: NatsConnection,
  stack: Stack,
  tenant: Pick<Tenant, 'orgId' | 'projectId' | 'apiKeyId'>,
  data: Uint8Array,
  extraHeaders: Record<string, string> = {},
): Promise<number> {
  const h = natsHeaders();
  const envelope = envelopeToHeaders({
    schema: INGEST_SCHEMAS.nativeBatch,
    orgId: tenant.orgId,
    projectId: tenant.projectId,
    apiKeyId: tenant.apiKeyId,
    receivedAt: new Date().toISOString(),
    requestId: randomUUID(),
    chunkIndex: 0,
    chunkCount: 1,
  });
  for (const [k, v] of Object.entries({ ...envelope, ...extraHeaders })) h.set(k, v);
  return (await nc.jetstream().publish(`${stack.streamPrefix}ingest.${tenant.orgId}.${tenant.projectId}.batch`, data, { headers: h })).seq;
}

/** Writing with an API key (telemetry, scores) and reading traces back, as an SDK would. */

export const NATIVE_TRACES = '/api/v1/traces';
export const OTLP_TRACES = '/api/v1/otel/traces';
/** The OTLP path an OpenTelemetry Collector appends `/v1/traces` to. */
export const OTLP_COLLECTOR_TRACES = '/api/v1/otel/v1/traces';
export const SCORES = '/api/v1/scores';

/** The status each write path answers an accepted write with (CONTRACT.md). */
const ACCEPTED: Record<string, number> = { [NATIVE_TRACES]: 201, [OTLP_TRACES]: 200, [OTLP_COLLECTOR_TRACES]: 200, [SCORES]: 201 };

/**
 * One POST, its answer unread: JSON unless the body is already a string or bytes (for the tests
 * that send odd ones); a null `apiKey` sends no authorization.
 */
export function postWithKey(
  stack: Pick<Stack, 'baseUrl'>,
  apiKey: string | null,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${stack.baseUrl}${path}`, {
    method: 'POST',
    headers: { ...(apiKey === null ? {} : { authorization: `Bearer ${apiKey}` }), 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
}

export interface Written {
  status: number;
  headers: Headers;
  body: any;
  /** The read-your-writes token (Spanlog-Seq); null where the write was refused. */
  seq: string | null;
}

/** Posts and reads the whole answer, whatever its status. */
export async function write(
  stack: Stack,
  apiKey: string | null,
  path: string,
  body: unknown,
  headers?: Record<string, string>,
): Promise<Written> {
  const res = await postWithKey(stack, apiKey, path, body, headers);
  const text = await res.text();
  const answer = { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null, seq: res.headers.get('spanlog-seq') };
  if (OPENAPI_CHECK) await checkAnswer(stack.baseUrl, 'POST', path, answer.status, answer.body);
  return answer;
}

/** Posts a write the test needs accepted, failing with the answer unless the path's accepted status comes back: the read-your-writes token. */
export async function ingest(stack: Stack, apiKey: string, path: string, body: unknown): Promise<string> {
  const res = await write(stack, apiKey, path, body);
  if (res.status !== ACCEPTED[path]) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.seq as string;
}

/**
 * The read-your-writes token of a one-span OTLP write made now, for clients that do not show their
 * own (the OTel exporters): a read waiting for it waits for every earlier message too.
 */
export const laterSeq = (stack: Stack, apiKey: string): Promise<string> =>
  ingest(
    stack,
    apiKey,
    OTLP_TRACES,
    exportOf([span({ traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') })]),
  );

/** The status a trace (by id or OTel hex id) answers when read at `seq`: 200 once it is there. */
export async function traceStatus(stack: Stack, apiKey: string, id: string, seq: string | null): Promise<number> {
  const res = await fetch(`${stack.baseUrl}/api/v1/traces/${encodeURIComponent(id)}?minSeq=${seq ?? ''}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  const text = await res.text();
  if (OPENAPI_CHECK) await checkAnswer(stack.baseUrl, 'GET', new URL(res.url).pathname, res.status, text ? JSON.parse(text) : null);
  return res.status;
}

/** Reads of a trace not yet visible (503 after the API's own 10 s wait) before giving up: a loaded CI machine once needed a second. */
const VISIBLE_READS = 3;

/**
 * Waits until the trace reads back at `seq`, so a page opened next has it; fails otherwise. A
 * 503 `NOT_YET_VISIBLE` is read again, as a client is told to; any other status fails at once.
 */
export async function traceVisible(stack: Stack, apiKey: string, id: string, seq: string | null): Promise<void> {
  let status = await traceStatus(stack, apiKey, id, seq);
  for (let read = 1; status === 503 && read < VISIBLE_READS; read++) status = await traceStatus(stack, apiKey, id, seq);
  if (status !== 200) throw new Error(`trace ${id} answered ${status}`);
}
