import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { INGEST_SCHEMAS, type IngestEnvelope, envelopeToHeaders, validateModelDefinition } from '@app/domain';
import { ChunkReader, type NatsResources, toNatsHeaders } from '@app/eventlog';
import { closeTestStreams, openTestStreams, testStreamPrefix } from '@app/eventlog/testing/test-streams';
import { ModelDefinitionStore } from '@app/persistence';
import { seedProject, useTestDatabase } from '@app/persistence/testing/test-database';
import type { StoredMessage } from '../projection';
import { ProjectPriceTables } from './project-prices';
import { recomputeCosts } from './recompute-costs';
import { rebuildTelemetry } from './rebuild-telemetry';
import { PRICED_COLUMNS } from './span-costs';
import { storedVersionOf } from './tables/stored-versions';
import { applyTelemetryBatch, telemetryPosition, telemetryProjection } from './telemetry.projection';

const T0 = Date.UTC(2026, 10, 1, 9);
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const USAGE = { input: 100, output: 10 };
const OWN_4O = { modelName: 'gpt-4o', matchPattern: '(?i)^gpt-4o$', unit: 'TOKENS', prices: { input: 1e-3, output: 2e-3 } };

interface PricedColumns {
  cost: number | null;
  cost_source: string | null;
  cost_details: Record<string, number> | null;
  unpriced_usage: string[] | null;
}

type NativeEvent = { type: 'generation-create' | 'generation-update'; seconds: number; body: Record<string, unknown> };
const create = (id: string, seconds: number, body: Record<string, unknown>): NativeEvent => ({
  type: 'generation-create',
  seconds,
  body: { id, traceId: 'tr', name: 'answer', startTime: at(1), ...body },
});
const update = (id: string, seconds: number, body: Record<string, unknown>): NativeEvent => ({
  type: 'generation-update',
  seconds,
  body: { id, traceId: 'tr', ...body },
});

/**
 * Issue 28: a span's cost is what its merged row prices to (model, start and usage, whichever
 * messages they came in), the same live, in a rebuild and in a recomputation; and a price change
 * while a rebuild replays reaches the rebuilt rows.
 */
/** Decoded in the rebuild's own thread: integration tests run the TypeScript, which worker threads cannot load. */
const IN_PROCESS = { workers: 0, warn: () => undefined };

describe('costs of merged spans', () => {
  afterAll(() => closeTestStreams(nats));
  const db = useTestDatabase();
  const context = { chunks: new ChunkReader(undefined as never, undefined as never) };
  let nats: NatsResources;
  let store: ModelDefinitionStore;

  beforeAll(async () => {
    nats = await openTestStreams('merged-costs-test', testStreamPrefix('MC'));
    store = new ModelDefinitionStore(db.ds);
  });

  /** Appends one native request of `events` to INGEST as the API does; the message as stored. */
  const publish = async (projectId: string, events: NativeEvent[]): Promise<StoredMessage> => {
    const envelope: IngestEnvelope = {
      schema: INGEST_SCHEMAS.nativeBatch,
      orgId: randomUUID(),
      projectId,
      apiKeyId: 'key-1',
      receivedAt: at(events[0].seconds),
      requestId: randomUUID(),
      chunkIndex: 0,
      chunkCount: 1,
    };
    const batch = events.map((e, i) => ({ id: `e-${randomUUID()}-${i}`, type: e.type, timestamp: at(e.seconds), body: e.body }));
    const headers = toNatsHeaders(envelopeToHeaders(envelope));
    const data = new TextEncoder().encode(JSON.stringify({ batch }));
    const { seq } = await nats.js.publish(nats.layout.ingestSubject(envelope.orgId, projectId, 'batch'), data, { headers });
    return { seq, headers, data };
  };
  /** Applies messages live, one batch of them, as the processor does. */
  const applyLive = async (msgs: StoredMessage[]) => {
    const decoded = await Promise.all(msgs.map((m) => telemetryProjection.decode(m, context)));
    const batch = await telemetryProjection.prepare(decoded, { prices: new ProjectPriceTables(db.ds) });
    await applyTelemetryBatch(db.ds, telemetryPosition(nats), batch, { scheduleEvaluations: false, countUsage: false });
  };
  /** The priced columns of the project's spans by external id, with the versions they hold. */
  const costs = async (projectId: string) => {
    const rows: (PricedColumns & { id: string; versions: Record<string, string | null> })[] = await db.ds.query(
      `SELECT external_id AS id, cost, cost_source, cost_details, unpriced_usage, versions FROM spans WHERE project_id = $1 ORDER BY external_id`,
      [projectId],
    );
    return Object.fromEntries(
      rows.map(({ id, versions, ...priced }) => [
        id,
        {
          ...priced,
          versions: Object.fromEntries(
            PRICED_COLUMNS.map(({ field, column }) => [
              field,
              storedVersionOf(versions, field, (priced as Record<string, unknown>)[column] !== null) ?? null,
            ]),
          ),
        },
      ]),
    );
  };

  it('prices a span whose model and usage came in different messages, in either order, live as a rebuild and a recomputation do; a client cost wins', async () => {
    const { projectId } = await seedProject(db.ds);
    const requests: NativeEvent[][] = [
      // Model first, usage later.
      [create('split', 2, { model: 'gpt-4o' })],
      [update('split', 3, { usage: USAGE })],
      // The same, the later message applied first.
      [update('reversed', 3, { usage: USAGE })],
      [create('reversed', 2, { model: 'gpt-4o' })],
      // Usage first, the model in a later update.
      [create('late-model', 2, { usage: USAGE })],
      [update('late-model', 3, { model: 'gpt-4o' })],
      // A later update changes the model of a span priced whole, applied before it.
      [update('new-model', 3, { model: 'gpt-4o-mini' })],
      [create('new-model', 2, { model: 'gpt-4o', usage: USAGE })],
      // Both in one request: one batch.
      [create('one-batch', 2, { model: 'gpt-4o' }), update('one-batch', 3, { usage: USAGE })],
      // A client's cost, in either message.
      [create('client-first', 2, { model: 'gpt-4o', cost: 0.5 })],
      [update('client-first', 3, { usage: USAGE })],
      [create('client-later', 2, { model: 'gpt-4o' })],
      [update('client-later', 3, { usage: USAGE, cost: 0.7 })],
    ];
    for (const events of requests) await applyLive([await publish(projectId, events)]);

    const live = await costs(projectId);
    const [mini, full] = [live['new-model'], live.split];
    // The same cost whatever the order; the versions name each span's own usage event.
    const withoutVersions = ({ versions: _, ...priced }: (typeof live)[string]) => priced;
    for (const id of ['reversed', 'late-model', 'one-batch']) expect(withoutVersions(live[id])).toEqual(withoutVersions(full));
    expect(full).toMatchObject({ cost_source: 'price:gpt-4o', cost_details: { input: expect.any(Number), output: expect.any(Number) } });
    expect(full.cost).toBeCloseTo((full.cost_details?.input ?? 0) + (full.cost_details?.output ?? 0), 12);
    expect(full.cost).toBeGreaterThan(0);
    expect(full.versions.cost).toMatch(/^0000-01-01T00:00:00.000Z\|price:/);
    expect(mini).toMatchObject({ cost_source: 'price:gpt-4o-mini' });
    expect(mini.cost).toBeLessThan(full.cost ?? 0);
    expect(live['client-first']).toMatchObject({ cost: 0.5, cost_source: 'client', cost_details: {} });
    expect(live['client-later']).toMatchObject({ cost: 0.7, cost_source: 'client', cost_details: {} });

    // A recomputation with prices that change nothing here finds every row as it would price it.
    await store.create(projectId, validateModelDefinition({ ...OWN_4O, modelName: 'other', matchPattern: '^other$' }));
    await recomputeCosts(db.ds);
    expect(await store.recomputation(projectId)).toMatchObject({ status: 'done', spansRecosted: 0 });

    await rebuildTelemetry(db.ds, nats, IN_PROCESS);
    expect(await costs(projectId)).toEqual(live);
  });

  it('recomputes, after the swap, the costs of a project whose prices changed while a rebuild replayed, as a fresh rebuild has them', async () => {
    const { projectId } = await seedProject(db.ds);
    // More than one replayed batch (256 messages), so that the change comes between two.
    const msgs: StoredMessage[] = [];
    for (let i = 0; i < 300; i++) msgs.push(await publish(projectId, [create(`s${i}`, 2, { model: 'gpt-4o', usage: USAGE })]));
    await applyLive(msgs);
    expect(Object.values(await costs(projectId)).every((r) => r.cost_source === 'price:gpt-4o')).toBe(true);

    let own: { id: string } | undefined;
    const rebuilt = await rebuildTelemetry(db.ds, nats, IN_PROCESS, {
      onProgress: async ({ phase }) => {
        if (phase !== 'replay' || own) return;
        // A change between two of the replay's batches, recomputed on the live tables before the swap, as a processor would.
        own = await store.create(projectId, validateModelDefinition(OWN_4O));
        await recomputeCosts(db.ds);
      },
    });
    expect(own).toBeDefined();
    expect(rebuilt.recomputedProjects).toBe(1);
    expect(await store.recomputation(projectId)).toMatchObject({ status: 'running', spansDone: 0 });
    await recomputeCosts(db.ds);
    const recomputed = await costs(projectId);
    expect(Object.values(recomputed).every((r) => r.cost_source === `price:${own?.id}`)).toBe(true);

    await rebuildTelemetry(db.ds, nats, IN_PROCESS);
    expect(await costs(projectId)).toEqual(recomputed);
  });
});
