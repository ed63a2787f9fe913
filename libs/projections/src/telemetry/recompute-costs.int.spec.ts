import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { INGEST_SCHEMAS, type IngestEnvelope, envelopeToHeaders, validateModelDefinition } from '@app/domain';
import { ChunkReader, toNatsHeaders } from '@app/eventlog';
import { ModelDefinitionStore, StalePricesError } from '@app/persistence';
import { seedProject, useTestDatabase } from '@app/persistence/testing/test-database';
import type { StoredMessage } from '../projection';
import { ProjectPriceTables } from './project-prices';
import { recomputeCostStep, recomputeCosts } from './recompute-costs';
import { storedVersionOf } from './tables/stored-versions';
import { type TelemetryBatch, applyTelemetryBatch, telemetryProjection } from './telemetry.projection';

const T0 = Date.UTC(2026, 10, 1, 9);
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const OWN_PRICE = { input: 1e-3, output: 2e-3 };
const OWN_4O = { modelName: 'gpt-4o', matchPattern: '(?i)^gpt-4o$', unit: 'TOKENS', prices: OWN_PRICE };

describe('cost recomputation', () => {
  const db = useTestDatabase();
  const context = { chunks: new ChunkReader(undefined as never, undefined as never) };
  const position = { projection: telemetryProjection.name, version: telemetryProjection.version, stream: `test-${randomUUID()}` };
  let projectId: string;
  let seq = 0;
  let store: ModelDefinitionStore;

  /** One message of `spans` generations, as a client sends them: model, start and usage; `cost` when the client sends one. */
  const message = (spans: { id: string; model: string; cost?: number }[]): StoredMessage => {
    const n = ++seq;
    const envelope: IngestEnvelope = {
      schema: INGEST_SCHEMAS.nativeBatch,
      orgId: randomUUID(),
      projectId,
      apiKeyId: 'key-1',
      receivedAt: at(n),
      requestId: randomUUID(),
      chunkIndex: 0,
      chunkCount: 1,
    };
    const batch = spans.map((s, i) => ({
      id: `e-${n}-${i}`,
      type: 'generation-create',
      timestamp: at(n),
      body: {
        id: s.id,
        traceId: 'tr',
        name: 'answer',
        model: s.model,
        startTime: at(n),
        usage: { input: 100, output: 10 },
        costDetails: undefined,
        ...(s.cost === undefined ? {} : { cost: s.cost }),
      },
    }));
    return { seq: n, headers: toNatsHeaders(envelopeToHeaders(envelope)), data: new TextEncoder().encode(JSON.stringify({ batch })) };
  };
  const prepared = async (msgs: StoredMessage[]): Promise<TelemetryBatch> =>
    telemetryProjection.prepare(await Promise.all(msgs.map((m) => telemetryProjection.decode(m, context))), {
      prices: new ProjectPriceTables(db.ds),
    });
  const apply = (batch: TelemetryBatch) => applyTelemetryBatch(db.ds, position, batch, { scheduleEvaluations: false, countUsage: false });

  /** The priced columns of the project's spans, with their versions resolved. */
  const costs = async () => {
    const rows: {
      id: string;
      cost: number | null;
      cost_source: string | null;
      cost_details: unknown;
      versions: Record<string, string | null>;
    }[] = await db.ds.query(
      'SELECT external_id AS id, cost, cost_source, cost_details, versions FROM spans WHERE project_id = $1 ORDER BY external_id',
      [projectId],
    );
    return rows.map(({ versions, ...r }) => ({
      ...r,
      version: storedVersionOf(versions, 'cost', r.cost !== null) ?? null,
      sourceVersion: storedVersionOf(versions, 'costSource', r.cost_source !== null) ?? null,
    }));
  };
  const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  let messages: StoredMessage[] = [];

  /** The rows a fresh rebuild writes from the same messages with the definitions as they are now. */
  const freshCosts = async () => {
    await db.ds.query('DELETE FROM spans WHERE project_id = $1', [projectId]);
    for (const m of messages) await apply(await prepared([m]));
    return costs();
  };

  beforeAll(async () => {
    ({ projectId } = await seedProject(db.ds));
    store = new ModelDefinitionStore(db.ds);
    messages = [
      message(ids('a', 12).map((id) => ({ id, model: 'gpt-4o' }))),
      message([
        { id: 'client', model: 'gpt-4o', cost: 0.5 },
        { id: 'other', model: 'claude-sonnet-4-5' },
      ]),
      message(ids('b', 12).map((id) => ({ id, model: 'GPT-4o' }))),
    ];
    for (const m of messages) await apply(await prepared([m]));
  });

  it('re-costs the spans a new project definition prices, leaves a client cost and other models, and equals a fresh rebuild', async () => {
    const before = await costs();
    expect(before.find((r) => r.id === 'a0')?.cost_source).toBe('price:gpt-4o');
    await db.ds.query('DELETE FROM stats_5m_dirty');
    const own = await store.create(projectId, validateModelDefinition(OWN_4O));

    // The spans of gpt-4o only: the claude one is not looked at.
    expect(await recomputeCosts(db.ds, 10)).toBe(25);
    const after = await costs();
    const a0 = after.find((r) => r.id === 'a0');
    expect(a0).toMatchObject({
      cost_source: `price:${own.id}`,
      cost_details: { input: 100 * OWN_PRICE.input, output: 10 * OWN_PRICE.output },
    });
    expect(a0?.cost).toBeCloseTo(0.12, 10);
    expect(after.find((r) => r.id === 'b3')?.cost_source).toBe(`price:${own.id}`);
    expect(after.find((r) => r.id === 'client')).toEqual(before.find((r) => r.id === 'client'));
    expect(after.find((r) => r.id === 'other')).toEqual(before.find((r) => r.id === 'other'));
    expect(await store.recomputation(projectId)).toMatchObject({ status: 'done', spansTotal: 25, spansDone: 25, spansRecosted: 24 });
    const [{ n }] = await db.ds.query('SELECT count(*)::int AS n FROM stats_5m_dirty WHERE project_id = $1', [projectId]);
    expect(n).toBeGreaterThan(0);

    expect(await freshCosts()).toEqual(after);
  });

  it('restores the built-in price when the definition is deleted, as a fresh rebuild has it', async () => {
    const [own] = await store.list(projectId);
    expect(await store.delete(projectId, own.id)).toBe(true);
    await recomputeCosts(db.ds);
    const after = await costs();
    expect(after.find((r) => r.id === 'a0')?.cost_source).toBe('price:gpt-4o');
    expect(await freshCosts()).toEqual(after);
  });

  it('refuses a batch priced before a change that commits after the recomputation passed its rows; priced again it has the new price', async () => {
    const late = message([{ id: 'late', model: 'gpt-4o' }]);
    messages.push(late);
    const stale = await prepared([late]);
    const own = await store.create(projectId, validateModelDefinition(OWN_4O));
    await recomputeCosts(db.ds);

    await expect(apply(stale)).rejects.toBeInstanceOf(StalePricesError);
    await apply(await prepared([late]));
    expect((await costs()).find((r) => r.id === 'late')?.cost_source).toBe(`price:${own.id}`);
    expect(await freshCosts()).toEqual(await costs());
    await store.delete(projectId, own.id);
    await recomputeCosts(db.ds);
  });

  it('makes a change wait for the batches in flight, which share the project price lock until they commit', async () => {
    const runner = db.ds.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await new ModelDefinitionStore(runner.manager).holdPriceVersions(
        new Map([[projectId, Number((await store.priceVersions([projectId])).get(projectId))]]),
      );
      let changed = false;
      const change = store.create(projectId, validateModelDefinition(OWN_4O)).then((d) => ((changed = true), d));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(changed).toBe(false);
      await runner.commitTransaction();
      const own = await change;
      await store.delete(projectId, own.id);
      await recomputeCosts(db.ds);
    } finally {
      await runner.release();
    }
  });

  it('resumes where the last committed step stopped; a step cut off leaves nothing, and a change starts it again from the first span', async () => {
    await store.create(projectId, validateModelDefinition(OWN_4O));
    expect(await recomputeCostStep(db.ds, 10)).toMatchObject({ looked: 10, done: false });
    expect(await store.recomputation(projectId)).toMatchObject({ status: 'running', spansDone: 10 });

    // A processor killed mid-step: its transaction held the recomputation and wrote rows, then never committed.
    const killed = db.ds.createQueryRunner();
    await killed.connect();
    await killed.startTransaction();
    await killed.query(`SELECT 1 FROM cost_recomputations WHERE project_id = $1 FOR UPDATE`, [projectId]);
    await killed.query(`UPDATE spans SET cost = 99 WHERE project_id = $1`, [projectId]);
    expect(await recomputeCostStep(db.ds, 10)).toBeNull();
    await killed.rollbackTransaction();
    await killed.release();

    expect(await recomputeCostStep(db.ds, 10)).toMatchObject({ looked: 10, done: false });
    expect(await store.recomputation(projectId)).toMatchObject({ status: 'running', spansDone: 20 });
    const [own] = await store.list(projectId);
    await store.update(projectId, own.id, validateModelDefinition({ ...OWN_4O, prices: { input: 5e-3, output: 5e-3 } }));
    expect(await store.recomputation(projectId)).toMatchObject({ status: 'running', spansDone: 0, spansTotal: null });
    await recomputeCosts(db.ds, 10);
    const after = await costs();
    expect(after.find((r) => r.id === 'a0')?.cost).toBeCloseTo(0.55, 10);
    expect(await freshCosts()).toEqual(after);
  });

  it('refuses a definition with the same pattern and start date as another, naming startDate', async () => {
    await expect(store.create(projectId, validateModelDefinition(OWN_4O))).rejects.toThrow(/^startDate: definition /);
  });

  it("looks at the models of a definition's old pattern and its new one, and of a change made while it runs", async () => {
    const [own] = await store.list(projectId);
    await store.update(projectId, own.id, validateModelDefinition({ ...OWN_4O, matchPattern: '^claude-.*$' }));
    expect(await recomputeCostStep(db.ds, 5)).toMatchObject({ looked: 5, done: false });
    // A change while it runs adds its own pattern's models to those left to look at: it starts again from the first span.
    const mine = await store.create(projectId, validateModelDefinition({ ...OWN_4O, modelName: 'mine', matchPattern: '^mine$' }));
    await recomputeCosts(db.ds, 5);
    const [{ n }] = await db.ds.query('SELECT count(*)::int AS n FROM spans WHERE project_id = $1', [projectId]);
    expect(await store.recomputation(projectId)).toMatchObject({ status: 'done', spansTotal: n, spansDone: n });
    const after = await costs();
    expect(after.find((r) => r.id === 'a0')?.cost_source).toBe('price:gpt-4o');
    expect(after.find((r) => r.id === 'other')?.cost_source).toBe(`price:${own.id}`);
    expect(await freshCosts()).toEqual(after);

    // Only the pattern of the definition deleted: no span has that model.
    expect(await store.delete(projectId, mine.id)).toBe(true);
    await recomputeCosts(db.ds);
    expect(await store.recomputation(projectId)).toMatchObject({ status: 'done', spansTotal: 0, spansDone: 0 });
  });
});
