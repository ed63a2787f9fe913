import 'reflect-metadata';
import { ProjectPriceTables } from './project-prices';
import { randomUUID } from 'node:crypto';
import { INGEST_SCHEMAS, type IngestEnvelope, type IngestSchema, envelopeToHeaders } from '@app/domain';
import { ChunkReader, toNatsHeaders } from '@app/eventlog';
import { ProjectionCheckpoints, TraceQueries } from '@app/persistence';
import { useTestDatabase } from '@app/persistence/testing/test-database';
import { type StoredMessage, decodeStored } from '../projection';
import type { DecodedIngestMessage } from './decode-ingest-message';
import { TELEMETRY_TABLES } from './tables/telemetry-writer';
import { applyTelemetryBatch, telemetryProjection } from './telemetry.projection';

const projectId = randomUUID();
const T0 = Date.UTC(2026, 10, 1, 9);
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

const envelope = (schema: IngestSchema, receivedAt: string): IngestEnvelope => ({
  schema,
  orgId: randomUUID(),
  projectId,
  apiKeyId: 'key-1',
  receivedAt,
  requestId: randomUUID(),
  chunkIndex: 0,
  chunkCount: 1,
});
const stored = (seq: number, headers: Record<string, string> | undefined, body: string): StoredMessage => ({
  seq,
  headers: headers && toNatsHeaders(headers),
  data: new TextEncoder().encode(body),
});
const request = (seq: number, schema: IngestSchema, body: unknown): StoredMessage =>
  stored(seq, envelopeToHeaders(envelope(schema, at(seq))), JSON.stringify(body));

/**
 * One trace told over three requests as a client sends it: created with a retrieval span and a
 * generation, then the span ended and the trace renamed, then scored. Later events must win
 * whatever order the requests are applied in.
 */
const REQUESTS: StoredMessage[] = [
  request(1, INGEST_SCHEMAS.nativeBatch, {
    batch: [
      { id: 'e1', type: 'trace-create', timestamp: at(1), body: { id: 'tr', name: 'first name', tags: ['a'] } },
      {
        id: 'e2',
        type: 'span-create',
        timestamp: at(1),
        body: { id: 's1', traceId: 'tr', name: 'retrieve', startTime: at(1), input: { q: 'why' } },
      },
      {
        id: 'e3',
        type: 'generation-create',
        timestamp: at(1),
        body: {
          id: 'g1',
          traceId: 'tr',
          parentObservationId: 's1',
          name: 'answer',
          model: 'gpt-4o',
          startTime: at(1.5),
          usage: { input: 10, output: 5 },
        },
      },
    ],
  }),
  request(2, INGEST_SCHEMAS.nativeBatch, {
    batch: [
      { id: 'e4', type: 'span-update', timestamp: at(2), body: { id: 's1', traceId: 'tr', endTime: at(2), output: { docs: 3 } } },
      { id: 'e5', type: 'trace-create', timestamp: at(2), body: { id: 'tr', name: 'renamed' } },
      { id: 'e6', type: 'generation-update', timestamp: at(2), body: { id: 'g1', traceId: 'tr', endTime: at(2), output: 'because' } },
    ],
  }),
  request(3, INGEST_SCHEMAS.scores, {
    scores: [
      { traceId: 'tr', name: 'quality', value: 0.9 },
      { traceId: 'tr', spanId: 'g1', name: 'correct', value: true },
    ],
  }),
];

describe('telemetry projection', () => {
  const db = useTestDatabase();
  // No message here refers to the object store, so the reader never opens it.
  const context = { chunks: new ChunkReader(undefined as never, undefined as never) };
  const prices = { pricesOf: (ids: readonly string[]) => new ProjectPriceTables(db.ds).pricesOf(ids) };

  const decodeAll = async (msgs: StoredMessage[]): Promise<DecodedIngestMessage[]> =>
    Promise.all(msgs.map((m) => telemetryProjection.decode(m, context)));
  const applyInOrder = async (msgs: StoredMessage[], batchSize: number) => {
    for (let i = 0; i < msgs.length; i += batchSize) {
      const batch = await telemetryProjection.prepare(await decodeAll(msgs.slice(i, i + batchSize)), { prices });
      await db.ds.transaction((tx) => telemetryProjection.apply(tx, batch));
    }
  };
  /** The project's traces with their spans and scores, as GET /api/v1/traces/:id reads them. */
  const readBack = async () => {
    const queries = new TraceQueries(db.ds);
    const traces = await queries.list({ projectId, limit: 100 });
    return Promise.all(
      traces.map(async (t) => ({
        trace: t,
        spans: await queries.spansOf(projectId, t.id),
        scores: await queries.scoresOf(projectId, t.id),
      })),
    );
  };
  const clear = () => db.ds.query(`TRUNCATE ${TELEMETRY_TABLES.join(', ')}`);

  it('refuses for good what can never be applied: no envelope, a schema it does not handle, data that is not the schema', async () => {
    const reasons = await Promise.all(
      [
        stored(10, undefined, '{"batch":[]}'),
        stored(11, { ...envelopeToHeaders(envelope(INGEST_SCHEMAS.nativeBatch, at(0))), 'Spanlog-Schema': 'usage.counted/v1' }, '{}'),
        stored(12, envelopeToHeaders(envelope(INGEST_SCHEMAS.nativeBatch, at(0))), 'not json'),
        stored(13, envelopeToHeaders(envelope(INGEST_SCHEMAS.scores, at(0))), '{"scores":[{"name":"no trace","value":1}]}'),
        stored(14, envelopeToHeaders(envelope(INGEST_SCHEMAS.nativeBatch, at(0))), '{"batch":"not a list"}'),
      ].map((m) => decodeStored(telemetryProjection, m, context)),
    );
    expect(reasons).toEqual([
      { ok: false, reason: expect.stringContaining('Spanlog-Schema is missing') },
      { ok: false, reason: expect.stringContaining('usage.counted/v1 is not known') },
      { ok: false, reason: expect.stringContaining('data is not JSON') },
      { ok: false, reason: expect.stringContaining(`${INGEST_SCHEMAS.scores} data rejected`) },
      { ok: false, reason: expect.stringContaining(`${INGEST_SCHEMAS.nativeBatch} data rejected`) },
    ]);
    expect(await decodeStored(telemetryProjection, REQUESTS[0], context)).toMatchObject({
      ok: true,
      event: { seq: 1, envelope: { projectId } },
    });
  });

  it('writes the same rows whether the requests are applied once, twice, one by one or in reverse', async () => {
    await applyInOrder(REQUESTS, REQUESTS.length);
    const once = await readBack();
    // What the requests state, read back as a client would.
    expect(once).toHaveLength(1);
    expect(once[0].trace).toMatchObject({ name: 'renamed', tags: ['a'], span_count: 2, total_tokens: 15 });
    expect(once[0].spans.map((s) => [s.name, s.type, s.output])).toEqual([
      ['retrieve', 'CUSTOM', { docs: 3 }],
      ['answer', 'LLM', 'because'],
    ]);
    expect(once[0].scores.map((c) => [c.name, c.value]).sort()).toEqual([
      ['correct', true],
      ['quality', 0.9],
    ]);

    await applyInOrder(REQUESTS, REQUESTS.length);
    expect(await readBack()).toEqual(once);

    await clear();
    await applyInOrder([...REQUESTS].reverse(), 1);
    expect(await readBack()).toEqual(once);

    await clear();
    await applyInOrder([...REQUESTS].reverse(), REQUESTS.length);
    await applyInOrder(REQUESTS, 1);
    expect(await readBack()).toEqual(once);
  });

  it('marks for recount the stats buckets a live batch moves a span out of and into', async () => {
    const position = { projection: 'telemetry-marks', version: 1, stream: 'TEST' };
    await new ProjectionCheckpoints(db.ds).init(position, 0);
    const generation = (seq: number, model: string, startTime: string) =>
      request(seq, INGEST_SCHEMAS.nativeBatch, {
        batch: [
          {
            id: `m${seq}`,
            type: 'generation-create',
            timestamp: at(seq),
            body: { id: 'moved', traceId: 'marks', name: 'call', model, startTime },
          },
        ],
      });
    const applyLive = async (msg: StoredMessage) =>
      applyTelemetryBatch(db.ds, position, await telemetryProjection.prepare(await decodeAll([msg]), { prices }), {
        scheduleEvaluations: false,
        countUsage: false,
      });
    const marks = async () => ({
      model: (await db.ds.query(`SELECT model, hour FROM model_stats_dirty WHERE project_id = $1 ORDER BY hour`, [projectId])).map(
        (r: { model: string; hour: Date }) => [r.model, r.hour.toISOString()],
      ),
      overview: (await db.ds.query(`SELECT bucket FROM stats_5m_dirty WHERE project_id = $1 ORDER BY bucket`, [projectId])).map(
        (r: { bucket: Date }) => r.bucket.toISOString(),
      ),
    });
    const clearMarks = () => db.ds.query('DELETE FROM model_stats_dirty; DELETE FROM stats_5m_dirty');

    await clearMarks();
    await applyLive(generation(20, 'gpt-4o', '2026-11-01T09:07:00.000Z'));
    expect(await marks()).toEqual({ model: [['gpt-4o', '2026-11-01T09:00:00.000Z']], overview: ['2026-11-01T09:05:00.000Z'] });

    await clearMarks();
    await applyLive(generation(21, 'gpt-4o-mini', '2026-11-01T11:31:00.000Z'));
    expect(await marks()).toEqual({
      model: [
        ['gpt-4o', '2026-11-01T09:00:00.000Z'],
        ['gpt-4o-mini', '2026-11-01T11:00:00.000Z'],
      ],
      overview: ['2026-11-01T09:05:00.000Z', '2026-11-01T11:30:00.000Z'],
    });
  });
});
