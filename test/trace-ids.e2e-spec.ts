import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { isOtelTraceId, legacyTraceIds, otelTraceUuid } from '@app/domain';
import { exportOf, span } from '@app/otlp/testing/otlp-builders';
import { telemetryProjection } from '@app/projections';
import { type Tenant, bootstrap, data, eventually, login, query, send } from './support/api';
import { NATIVE_TRACES, OTLP_TRACES, SCORES, ingest, write } from './support/ingest';
import { type Stack, runCli, startStack } from './support/stack';

/**
 * Issue 12: about half of all OTel traces answered 404 by the very `id` the API returned for
 * them, since an OTel trace id written as a UUID rarely has an RFC 4122 version and variant.
 */
describe('trace ids from ingestion to a read', () => {
  let stack: Stack;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, 'ids@spanlog.test', 'Ids', 'p', 'enterprise');
  }, 120_000);

  afterAll(() => stack?.stop());

  const get = (path: string) => send(stack, 'GET', path, { token: tenant.apiKey });

  it('reads every OTel trace by the id the API returned, by that id in upper case, and by its hex id', async () => {
    const traceHex = fc.stringMatching(/^[0-9a-f]{32}$/).filter(isOtelTraceId);
    // Version nibble 0 and variant nibble f: never an RFC 4122 UUID, always among the cases.
    const examples: [string][] = [['0123456789ab0deff123456789abcdef']];
    await fc.assert(
      fc.asyncProperty(traceHex, async (hex) => {
        const res = await write(
          stack,
          tenant.apiKey,
          OTLP_TRACES,
          exportOf([span({ traceId: hex, spanId: hex.slice(0, 16), parentSpanId: '', name: 'root' })]),
        );
        expect(res.status).toBe(200);
        const seq = res.seq as string;
        const listed = await get(`/api/v1/traces?id=${hex}&minSeq=${seq}`);
        expect(listed.status).toBe(200);
        const [trace] = listed.body.data as { id: string; otelTraceId: string }[];
        expect(trace.otelTraceId).toBe(hex);
        for (const id of [trace.id, trace.id.toUpperCase(), hex, hex.toUpperCase()]) {
          const read = await get(`/api/v1/traces/${id}`);
          expect({ id, status: read.status }).toEqual({ id, status: 200 });
          expect(read.body).toMatchObject({ id: trace.id, otelTraceId: hex });
        }
        const byReturnedId = await get(`/api/v1/traces?id=${trace.id}`);
        expect((byReturnedId.body.data as { id: string }[]).map((t) => t.id)).toEqual([trace.id]);
      }),
      { numRuns: 25, examples },
    );
  }, 120_000);

  /**
   * Issue 24 item 4: a 32-hex id named two traces, the OTLP one (its hex as a UUID) and a
   * nameless one a native event made of it (UUIDv5 of the string as sent, one per spelling).
   */
  describe('one trace per OTel id, whatever route or case names it', () => {
    const hex = randomBytes(16).toString('hex');
    const HEX = hex.toUpperCase();
    const rootHex = randomBytes(8).toString('hex');
    const uuid = otelTraceUuid(hex);
    const seqs: string[] = [];
    const written = (res: { status: number; seq: string | null }, status: number) => {
      expect(res.status).toBe(status);
      expect(res.seq).not.toBeNull();
      seqs.push(res.seq as string);
    };
    const later = (ms: number) => new Date(Date.now() + ms).toISOString();

    beforeAll(async () => {
      const startNs = BigInt(Date.now()) * 1_000_000n;
      written(
        await write(
          stack,
          tenant.apiKey,
          OTLP_TRACES,
          exportOf([
            span({
              traceId: hex,
              spanId: rootHex,
              parentSpanId: '',
              name: 'otel root',
              startTimeUnixNano: String(startNs),
              endTimeUnixNano: String(startNs + 5_000_000n),
            }),
          ]),
        ),
        200,
      );
      // The OTLP root updated through the native batch by its OTel ids, in lower case and in upper case.
      written(
        await write(stack, tenant.apiKey, NATIVE_TRACES, {
          batch: [
            {
              id: 'upd-lower',
              type: 'span-update',
              timestamp: later(1_000),
              body: { id: rootHex, traceId: hex, output: 'from lower case' },
            },
            {
              id: 'new-upper',
              type: 'span-create',
              timestamp: later(1_000),
              body: {
                id: 'native-child',
                traceId: HEX,
                parentObservationId: rootHex.toUpperCase(),
                name: 'native child',
                startTime: later(0),
              },
            },
          ],
        }),
        201,
      );
      written(
        await write(stack, tenant.apiKey, NATIVE_TRACES, {
          batch: [
            {
              id: 'upd-upper',
              type: 'span-update',
              timestamp: later(2_000),
              body: { id: rootHex.toUpperCase(), traceId: HEX, statusMessage: 'from upper case' },
            },
          ],
        }),
        201,
      );
      written(await write(stack, tenant.apiKey, SCORES, { traceId: HEX, spanId: rootHex, name: 'rest score', value: 1 }), 201);
      written(
        await write(stack, tenant.apiKey, NATIVE_TRACES, {
          batch: [
            { id: 'native-score', type: 'score-create', timestamp: later(0), body: { traceId: hex, name: 'batch score', value: 0.5 } },
          ],
        }),
        201,
      );
      // A Langfuse SDK names traces by their OTel id too.
      const langfuse = await write(
        stack,
        null,
        '/api/public/ingestion',
        {
          batch: [
            {
              id: 'lf-1',
              type: 'observation-create',
              timestamp: later(0),
              body: { id: 'lf-span', traceId: hex, type: 'SPAN', name: 'langfuse span', startTime: later(0) },
            },
            { id: 'lf-2', type: 'score-create', timestamp: later(0), body: { traceId: HEX, name: 'langfuse score', value: 0.25 } },
          ],
        },
        { authorization: `Basic ${Buffer.from(`pk-lf-anything:${tenant.apiKey}`).toString('base64')}` },
      );
      expect(langfuse.body).toEqual({
        successes: [
          { id: 'lf-1', status: 201 },
          { id: 'lf-2', status: 201 },
        ],
        errors: [],
      });
      written(langfuse, 207);
      // Each write applied before any read below.
      for (const seq of seqs) expect((await get(`/api/v1/traces/${uuid}?minSeq=${encodeURIComponent(seq)}`)).status).toBe(200);
    }, 60_000);

    const expectTheOneTrace = (trace: any) => {
      expect(trace).toMatchObject({ id: uuid, otelTraceId: hex, externalId: null, name: 'otel root' });
      const byName = Object.fromEntries((trace.spans as any[]).map((s) => [s.name, s]));
      expect(Object.keys(byName).sort()).toEqual(['langfuse span', 'native child', 'otel root']);
      expect(byName['otel root']).toMatchObject({ otelSpanId: rootHex, output: 'from lower case', statusMessage: 'from upper case' });
      expect(byName['native child']).toMatchObject({ parentId: byName['otel root'].id, externalId: 'native-child' });
      expect((trace.scores as any[]).map((c) => c.name).sort()).toEqual(['batch score', 'langfuse score', 'rest score']);
      expect((trace.scores as any[]).find((c) => c.name === 'rest score')).toMatchObject({ spanId: byName['otel root'].id });
    };

    it.each([
      ['lower-case hex', () => hex],
      ['upper-case hex', () => HEX],
      ['UUID', () => uuid],
      ['upper-case UUID', () => uuid.toUpperCase()],
    ])('GET /api/v1/traces/:id by its %s answers the one trace, named by its root, with every write on it', async (_form, id) => {
      const read = await get(`/api/v1/traces/${id()}`);
      expect(read.status).toBe(200);
      expectTheOneTrace(read.body);
    });

    it('the list knows one trace by that id, in any form', async () => {
      for (const id of [hex, HEX, uuid]) {
        const listed = await get(`/api/v1/traces?id=${id}`);
        expect((listed.body.data as { id: string; name: string }[]).map((t) => [t.id, t.name])).toEqual([[uuid, 'otel root']]);
      }
      const named = await get(`/api/v1/traces?limit=100`);
      expect(
        (named.body.data as { otelTraceId: string | null; externalId: string | null }[]).filter(
          (t) => t.otelTraceId === hex || t.externalId?.toLowerCase() === hex,
        ),
      ).toHaveLength(1);
    });

    it('tRPC trace.get answers the same trace by its hex id in either case and by its UUID', async () => {
      const session = await login(stack, 'ids@spanlog.test');
      for (const id of [hex, HEX, uuid])
        expectTheOneTrace(data(await query(stack, session.access_token, 'trace.get', { projectId: tenant.projectId, id })));
    });

    it('the CLI gets the same trace by its hex id', async () => {
      const res = await runCli(['traces', 'get', HEX, '--key', tenant.apiKey, '--api', stack.baseUrl, '--json'], stack.env);
      expect(res.code).toBe(0);
      expectTheOneTrace(JSON.parse(res.stdout));
    });
  });

  /**
   * Rows stored before a 32-hex id named the OTel trace (a native event made a trace of its own,
   * UUIDv5 of the id as sent): found by that id until the upgrade, merged by its rebuild.
   */
  it('finds traces stored under the old ids, and the upgrade to this telemetry version merges them into the OTel trace', async () => {
    const both = randomBytes(16).toString('hex');
    const nativeOnly = randomBytes(16).toString('hex');
    const at = new Date().toISOString();
    const seq = await ingest(stack, tenant.apiKey, NATIVE_TRACES, {
      batch: [
        {
          id: 'old-1',
          type: 'span-create',
          timestamp: at,
          body: { id: 'old-span', traceId: both.toUpperCase(), name: 'native span', startTime: at },
        },
        { id: 'old-2', type: 'trace-create', timestamp: at, body: { id: nativeOnly.toUpperCase(), name: 'native only' } },
      ],
    });
    expect((await get(`/api/v1/traces/${nativeOnly}?minSeq=${encodeURIComponent(seq)}`)).status).toBe(200);
    // As the earlier mapping stored them: each under UUIDv5 of the id as sent, with that id as externalId.
    for (const hex of [both, nativeOnly]) {
      const [legacy] = legacyTraceIds(hex.toUpperCase());
      await stack.db.query('UPDATE traces SET id = $3, otel_trace_id = NULL, external_id = $4 WHERE project_id = $1 AND id = $2', [
        tenant.projectId,
        otelTraceUuid(hex),
        legacy,
        hex.toUpperCase(),
      ]);
      await stack.db.query('UPDATE spans SET trace_id = $3 WHERE project_id = $1 AND trace_id = $2', [
        tenant.projectId,
        otelTraceUuid(hex),
        legacy,
      ]);
    }
    const otlpSeq = await ingest(
      stack,
      tenant.apiKey,
      OTLP_TRACES,
      exportOf([span({ traceId: both, spanId: both.slice(0, 16), parentSpanId: '', name: 'otel root' })]),
    );
    const before = await get(`/api/v1/traces/${both}?minSeq=${encodeURIComponent(otlpSeq)}`);
    expect(before.body).toMatchObject({ id: otelTraceUuid(both), name: 'otel root' });
    for (const id of [nativeOnly, nativeOnly.toUpperCase()])
      expect((await get(`/api/v1/traces/${id}`)).body).toMatchObject({ name: 'native only', externalId: nativeOnly.toUpperCase() });

    const servingVersion = async () =>
      (await stack.db.query(`SELECT version FROM projection_versions WHERE projection = 'telemetry'`)).rows[0].version as number;
    // Tables built by an older version, as at an upgrade: the processor rebuilds them by itself.
    await stack.db.query(`UPDATE projection_versions SET version = 0 WHERE projection = 'telemetry'`);
    await stack.killProcessor('SIGTERM');
    await stack.startProcessor();
    await eventually(servingVersion, (v) => v === telemetryProjection.version, 60_000);

    const merged = await get(`/api/v1/traces/${both}`);
    expect(merged.body).toMatchObject({ id: otelTraceUuid(both), otelTraceId: both, externalId: null, name: 'otel root' });
    expect((merged.body.spans as { name: string }[]).map((s) => s.name).sort()).toEqual(['native span', 'otel root']);
    expect((await get(`/api/v1/traces?id=${both}`)).body.data).toHaveLength(1);
    expect((await get(`/api/v1/traces/${nativeOnly}`)).body).toMatchObject({
      id: otelTraceUuid(nativeOnly),
      otelTraceId: nativeOnly,
      externalId: null,
      name: 'native only',
    });
    const legacyIds = [both, nativeOnly].flatMap((hex) => legacyTraceIds(hex.toUpperCase()));
    expect(
      (
        await stack.db.query('SELECT count(*)::int AS n FROM traces WHERE project_id = $1 AND id = ANY($2::uuid[])', [
          tenant.projectId,
          legacyIds,
        ])
      ).rows,
    ).toEqual([{ n: 0 }]);
  }, 120_000);
});
