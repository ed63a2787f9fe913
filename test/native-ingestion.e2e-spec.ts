import { randomUUID } from 'node:crypto';
import { bootstrap } from './support/api';
import { type NativeEvent, nativeBatch, readFixture } from './support/factories';
import { NATIVE_TRACES, postWithKey, write } from './support/ingest';
import { type Stack, startStack } from './support/stack';

describe('native batch ingestion (POST /api/v1/traces → JetStream → processor → GET)', () => {
  let stack: Stack;
  let key: string;
  let otherKey: string;

  const get = async (path: string, apiKey = key) => {
    const res = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

  /** Posts and reads back through read-your-writes: no polling. Every accepted write carries a token. */
  const ingest = async (body: unknown, apiKey = key) => {
    const res = await write(stack, apiKey, NATIVE_TRACES, body);
    expect(res.status).toBe(201);
    expect(res.seq).toMatch(/^v1\.[A-Za-z0-9_-]{22}$/);
    return { body: res.body, seq: res.seq as string };
  };

  beforeAll(async () => {
    stack = await startStack();
    key = (await bootstrap(stack, 'e2e@spanlog.test', 'E2E', 'main')).apiKey;
    otherKey = (await bootstrap(stack, 'e2e@spanlog.test', 'E2E', 'other')).apiKey;
  }, 120_000);

  afterAll(() => stack?.stop());

  it('stores basic.json and reads back every field', async () => {
    const fixture = readFixture<{ batch: NativeEvent[] }>('native/basic.json');
    const { body, seq } = await ingest(fixture);
    expect(body).toEqual({ accepted: fixture.batch.length, errors: [] });
    const traceCreate = fixture.batch.find((e) => e.type === 'trace-create') as NativeEvent;
    const traceId = traceCreate.body.id as string;
    const { status, body: trace, headers } = await get(`/api/v1/traces/${encodeURIComponent(traceId)}?minSeq=${seq}`);
    expect(status).toBe(200);
    expect(headers.get('spanlog-visible-seq')).toMatch(/^v1\.[A-Za-z0-9_-]{22}$/);
    // The fixture's ids are UUIDs: kept as the ids themselves, with no externalId (CONTRACT "General").
    expect(trace).toMatchObject({
      id: traceId,
      externalId: null,
      name: traceCreate.body.name,
      userId: traceCreate.body.userId,
      sessionId: traceCreate.body.sessionId,
      metadata: traceCreate.body.metadata,
      tags: traceCreate.body.tags,
    });
    const spanEvents = fixture.batch.filter((e) => e.type !== 'trace-create');
    expect(trace.spans).toHaveLength(spanEvents.length);
    expect(trace.spanCount).toBe(spanEvents.length);
    const generation = fixture.batch.find((e) => e.type === 'generation-create') as NativeEvent;
    const usage = generation.body.usage as { input: number; output: number; total: number };
    const byId = (id: unknown) => trace.spans.find((s: any) => s.id === id);
    const span = byId(generation.body.id);
    expect(span).toMatchObject({
      type: 'LLM',
      model: generation.body.model,
      promptTokens: usage.input,
      completionTokens: usage.output,
      totalTokens: usage.total,
      cost: generation.body.cost,
    });
    expect(trace.totalTokens).toBe(usage.total);
    for (const e of spanEvents) {
      const s = byId(e.body.id);
      expect(s).toBeDefined();
      expect(s.name).toBe(e.body.name);
      if (e.body.input !== undefined) expect(s.input).toEqual(e.body.input);
      if (e.body.output !== undefined) expect(s.output).toEqual(e.body.output);
      if (e.body.parentObservationId) {
        expect(s.parentId).toBe(byId(e.body.parentObservationId).id);
      }
    }
  });

  it('converges out-of-order and duplicated events to the same rows as in-order delivery', async () => {
    const fixture = readFixture<{ batch: NativeEvent[] }>('native/out-of-order.json');
    // One project gets the file in one batch, the other one event per request, reversed.
    const one = await ingest(fixture);
    let last = '';
    for (const event of [...fixture.batch].reverse()) last = (await ingest({ batch: [event] }, otherKey)).seq;
    const traceId = (fixture.batch.find((e) => e.type === 'trace-create') as NativeEvent).body.id as string;
    const a = await get(`/api/v1/traces/${encodeURIComponent(traceId)}?minSeq=${one.seq}`);
    const b = await get(`/api/v1/traces/${encodeURIComponent(traceId)}?minSeq=${last}`, otherKey);
    const stable = (t: any) => ({ ...t, createdAt: undefined });
    expect(a.status).toBe(200);
    expect(stable(b.body)).toEqual(stable(a.body));
    const distinctSpanIds = new Set(fixture.batch.filter((e) => e.type !== 'trace-create').map((e) => e.body.id));
    expect(a.body.spans).toHaveLength(distinctSpanIds.size);
    const root = a.body.spans.find((s: any) => s.level === 'WARNING');
    expect(root).toBeDefined();
    expect(root.endTime).toBeTruthy();
  });

  it('answers an opaque Spanlog-Seq that names no stream position and cannot be forged or altered', async () => {
    const first = await ingest(nativeBatch(1, 1));
    const second = await ingest(nativeBatch(1, 1), otherKey);
    // Sealed: no digits of a position that would count what other tenants wrote in between.
    for (const { seq } of [first, second]) expect(seq).toMatch(/^v1\.[A-Za-z0-9_-]{22}$/);
    const read = await get(`/api/v1/traces?limit=1&minSeq=${second.seq}`, otherKey);
    expect(read.status).toBe(200);
    expect(read.headers.get('spanlog-visible-seq')).toMatch(/^v1\./);
    const at = 10;
    const altered = second.seq.slice(0, at) + (second.seq[at] === 'A' ? 'B' : 'A') + second.seq.slice(at + 1);
    for (const forged of [altered, 'ingest.1', `ingest.${Number.MAX_SAFE_INTEGER}`]) {
      const refused = await get(`/api/v1/traces?limit=1&minSeq=${encodeURIComponent(forged)}`);
      expect({ forged, status: refused.status, code: refused.body.error.code }).toEqual({ forged, status: 400, code: 'VALIDATION_ERROR' });
    }
  });

  it('stores a request sent twice once', async () => {
    const batch = nativeBatch(1, 5);
    const first = await ingest(batch);
    const second = await ingest(batch);
    expect(second.seq).toBe(first.seq);
    const traceId = batch.batch[0].body.id as string;
    const { body } = await get(`/api/v1/traces/${traceId}?minSeq=${second.seq}`);
    expect(body.spanCount).toBe(5);
    const [{ count }] = (await stack.db.query('SELECT count(*)::int AS count FROM spans WHERE external_id LIKE $1', [`${traceId}-%`])).rows;
    expect(count).toBe(5);
  });

  it('ingests max-batch.json: 1,000 events, 10 traces with their totals', async () => {
    const fixture = readFixture<{ batch: NativeEvent[] }>('native/max-batch.json');
    const { body, seq } = await ingest(fixture);
    expect(body).toEqual({ accepted: 1_000, errors: [] });
    const traceIds = fixture.batch.filter((e) => e.type === 'trace-create').map((e) => e.body.id as string);
    expect(traceIds).toHaveLength(10);
    for (const id of traceIds) {
      const { body: trace } = await get(`/api/v1/traces/${encodeURIComponent(id)}?minSeq=${seq}`);
      expect(trace).toMatchObject({ spanCount: 99, totalTokens: 630, totalCost: 0.000189 });
    }
  });

  it('refuses 1,001 events with 413 and a 6 MB body with 413', async () => {
    const tooMany = await postWithKey(stack, key, NATIVE_TRACES, nativeBatch(1, 1_000));
    expect(tooMany.status).toBe(413);
    expect(await tooMany.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    const big = JSON.stringify({
      batch: [
        {
          id: 'e',
          type: 'trace-create',
          timestamp: new Date().toISOString(),
          body: { id: 't', name: 'x', input: 'x'.repeat(6 * 1024 * 1024) },
        },
      ],
    });
    const tooBig = await postWithKey(stack, key, NATIVE_TRACES, big);
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('refuses a 6 MB chunked body sent without Content-Length with 413', async () => {
    const piece = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0)
          controller.enqueue(
            new TextEncoder().encode(
              '{"batch":[{"id":"e","type":"trace-create","timestamp":"2026-01-01T00:00:00Z","body":{"id":"t","name":"',
            ),
          );
        if (sent >= 6 * 1024 * 1024) return controller.close();
        controller.enqueue(piece);
        sent += piece.byteLength;
      },
    });
    const res = await fetch(`${stack.baseUrl}/api/v1/traces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('stores an event with a 2 MB input (larger than one stream message) and reads it back whole', async () => {
    const input = 'λ'.repeat(1024 * 1024);
    const traceId = `big-${randomUUID()}`;
    const { seq } = await ingest({
      batch: [
        { id: `${traceId}-e1`, type: 'trace-create', timestamp: new Date().toISOString(), body: { id: traceId, name: 'big' } },
        {
          id: `${traceId}-e2`,
          type: 'span-create',
          timestamp: new Date().toISOString(),
          body: { id: `${traceId}-s`, traceId, name: 'big span', startTime: new Date().toISOString(), input },
        },
      ],
    });
    const { body } = await get(`/api/v1/traces/${traceId}?minSeq=${seq}`);
    expect(body.spans[0].input).toBe(input);
  });

  it('answers 401 for a missing, wrong or revoked key, and 415 for a non-JSON body', async () => {
    const missing = await postWithKey(stack, null, NATIVE_TRACES, '{"batch":[]}');
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    expect((await postWithKey(stack, 'sl_wrong', NATIVE_TRACES, { batch: [] })).status).toBe(401);
    const revoked = await bootstrap(stack, 'e2e@spanlog.test', 'E2E', 'revoked');
    expect((await postWithKey(stack, revoked.apiKey, NATIVE_TRACES, { batch: [] })).status).toBe(201);
    await stack.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [revoked.apiKeyId]);
    expect((await postWithKey(stack, revoked.apiKey, NATIVE_TRACES, { batch: [] })).status).toBe(401);
    const text = await postWithKey(stack, key, NATIVE_TRACES, 'hello', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect(await text.json()).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });

  it("never shows a trace to another project's key", async () => {
    const batch = nativeBatch(1, 1);
    const { seq } = await ingest(batch);
    const id = batch.batch[0].body.id as string;
    expect((await get(`/api/v1/traces/${id}?minSeq=${seq}`)).status).toBe(200);
    const other = await get(`/api/v1/traces/${id}?minSeq=${seq}`, otherKey);
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect((await get(`/api/v1/traces?id=${id}`, otherKey)).body.data).toEqual([]);
  });

  it('stores an input holding \\u0000 and lone surrogates sanitized, and the next batch still projects', async () => {
    const traceId = `nul-${randomUUID()}`;
    const { seq } = await ingest({
      batch: [
        {
          id: `${traceId}-e`,
          type: 'trace-create',
          timestamp: new Date().toISOString(),
          body: { id: traceId, name: 'nul\u0000name', input: { text: 'a\u0000b\ud800c' } },
        },
      ],
    });
    const { body } = await get(`/api/v1/traces/${traceId}?minSeq=${seq}`);
    expect(body).toMatchObject({ name: 'nulname', input: { text: 'ab\ufffdc' } });
    const next = nativeBatch(1, 2);
    const after = await ingest(next);
    expect((await get(`/api/v1/traces/${next.batch[0].body.id as string}?minSeq=${after.seq}`)).status).toBe(200);
  });

  it('lists with filters, newest first, across pages', async () => {
    const tag = `tag-${randomUUID()}`;
    const batch: NativeEvent[] = [];
    for (let i = 0; i < 5; i++) {
      batch.push({
        id: `${tag}-${i}`,
        type: 'trace-create',
        timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        body: { id: `${tag}-t${i}`, name: 'listed', tags: [tag, 'common'], userId: i % 2 ? 'odd' : 'even' },
      });
    }
    const { seq } = await ingest({ batch });
    const first = await get(`/api/v1/traces?tags=${tag},common&limit=2&minSeq=${seq}`);
    expect(first.status).toBe(200);
    expect(first.body.data.map((t: any) => t.externalId)).toEqual([`${tag}-t4`, `${tag}-t3`]);
    const second = await get(`/api/v1/traces?tags=${tag}&limit=2&cursor=${first.body.meta.nextCursor}`);
    expect(second.body.data.map((t: any) => t.externalId)).toEqual([`${tag}-t2`, `${tag}-t1`]);
    const third = await get(`/api/v1/traces?tags=${tag}&limit=2&cursor=${second.body.meta.nextCursor}`);
    expect(third.body.data.map((t: any) => t.externalId)).toEqual([`${tag}-t0`]);
    expect(third.body.meta.nextCursor).toBeNull();
    const odd = await get(`/api/v1/traces?tags=${tag}&userId=odd`);
    expect(odd.body.data).toHaveLength(2);
    expect((await get('/api/v1/traces?limit=101')).status).toBe(400);
    expect((await get('/api/v1/traces?cursor=garbage')).body).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
  });

  it('answers per-event errors beside the accepted count, and 400 when no event is valid', async () => {
    const good = nativeBatch(1, 1).batch;
    const res = await postWithKey(stack, key, NATIVE_TRACES, {
      batch: [...good, { id: 'bad', type: 'span-create', timestamp: 'yesterday', body: {} }],
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as any;
    expect(body.accepted).toBe(2);
    expect(body.errors).toEqual([expect.objectContaining({ index: 2, id: 'bad', code: 'VALIDATION_ERROR' })]);
    const none = await postWithKey(stack, key, NATIVE_TRACES, { batch: [{ id: 'bad', type: 'nope', timestamp: 'x', body: {} }] });
    expect(none.status).toBe(400);
    expect((await postWithKey(stack, key, NATIVE_TRACES, { notBatch: [] })).status).toBe(400);
    expect(await (await postWithKey(stack, key, NATIVE_TRACES, { batch: [] })).json()).toEqual({ accepted: 0, errors: [] });
  });

  it('answers health without auth and 404 in the error shape for unknown routes', async () => {
    const health = await fetch(`${stack.baseUrl}/api/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const missing = await fetch(`${stack.baseUrl}/api/v1/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});
