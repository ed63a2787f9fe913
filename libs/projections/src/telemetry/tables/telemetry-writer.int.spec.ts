import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { MigrationInterface } from 'typeorm';
import {
  type RunItemDelta,
  SPAN_LEVELS,
  type SpanDelta,
  type SpanFields,
  type TelemetryFacts,
  type TraceDelta,
  type TraceFields,
  foldFacts,
  handScoreFacts,
  legacyTraceIds,
  mergeVersioned,
  nativeEventsToFacts,
  nativeId,
  otelTraceUuid,
  runItemIdOf,
  parseHandScoreMessage,
  stamped,
  validateNativeBatch,
  versionOf,
} from '@app/domain';
import { MIGRATIONS } from '@app/migrations';
import { useTestDatabase } from '@app/persistence/testing/test-database';
import { SPAN_ATTRIBUTES, SPAN_FIELD_COLUMNS } from './columns';
import { deleteTraces, writeTelemetry } from './telemetry-writer';
import { withUnsetNamed } from './upsert-sql';
import { TraceQueries } from '@app/persistence';

const projectId = randomUUID();
const traceId = randomUUID();

const trace = (iso: string, eventId: string, values: Partial<TraceFields>, minSpanStart: string | null = null): TraceDelta => ({
  projectId,
  id: traceId,
  otelTraceId: null,
  externalId: 'ext',
  createdAt: iso,
  firstEventTime: iso,
  minSpanStart,
  ...stamped(values, versionOf(iso, eventId)),
});
const span = (id: string, iso: string, eventId: string, values: Partial<SpanFields>): SpanDelta => ({
  projectId,
  id,
  otelSpanId: null,
  externalId: null,
  createdAt: iso,
  ...stamped({ traceId, ...values }, versionOf(iso, eventId)),
});
const facts = (partial: Partial<TelemetryFacts>): TelemetryFacts => ({
  traces: [],
  spans: [],
  scores: [],
  runItems: [],
  deletions: [],
  scoreDeletions: [],
  ...partial,
});

describe(writeTelemetry.name, () => {
  const db = useTestDatabase();

  beforeEach(() => db.ds.query('TRUNCATE traces, spans, scores, dataset_run_items, deleted_traces, deleted_scores'));

  const events = [
    facts({ traces: [trace('2024-01-01T00:00:03.000Z', 'a', { name: 'newest', tags: ['x', 'y'] })] }),
    facts({ traces: [trace('2024-01-01T00:00:01.000Z', 'b', { name: 'oldest', userId: 'u-old', input: { deep: ['v'] } })] }),
    facts({ traces: [trace('2024-01-01T00:00:02.000Z', 'c', { userId: 'u-mid' }, '2024-01-01T00:00:00.500Z')] }),
  ];
  const orders = [
    [0, 1, 2],
    [2, 1, 0],
    [1, 0, 2],
    [1, 2, 0, 0, 1],
  ];

  it.each(orders)('converges to the same row whatever the order (%p…)', async (...order: number[]) => {
    for (const i of order) await db.ds.transaction((m) => writeTelemetry(m, events[i]));
    const [row] = await db.ds.query('SELECT name, user_id, tags, input, "timestamp", created_at FROM traces');
    expect(row).toEqual({
      name: 'newest',
      user_id: 'u-mid',
      tags: ['x', 'y'],
      input: { deep: ['v'] },
      timestamp: new Date('2024-01-01T00:00:00.500Z'),
      created_at: new Date('2024-01-01T00:00:01.000Z'),
    });
  });

  it('aggregates spans on read: count, tokens, cost and latency', async () => {
    await db.ds.transaction((m) =>
      writeTelemetry(
        m,
        facts({
          traces: [trace('2024-01-01T00:00:00.000Z', 'e0', { name: 't' })],
          spans: [
            span(randomUUID(), '2024-01-01T00:00:00.000Z', 'e1', {
              startTime: '2024-01-01T00:00:00.000Z',
              endTime: '2024-01-01T00:00:02.000Z',
              totalTokens: 15,
              cost: 0.0000045,
            }),
            span(randomUUID(), '2024-01-01T00:00:00.000Z', 'e2', {
              startTime: '2024-01-01T00:00:01.000Z',
              promptTokens: 10,
              completionTokens: 5,
              cost: 0.0000045,
            }),
          ],
        }),
      ),
    );
    const [row] = await new TraceQueries(db.ds).list({ projectId, limit: 10 });
    expect(row).toMatchObject({ span_count: 2, total_tokens: 30, total_cost: 0.000009, latency_ms: 2000 });
  });

  it('reports the rows it created, per project and UTC month, and not the ones it merged into', async () => {
    const first = await db.ds.transaction((m) => writeTelemetry(m, events[0]));
    expect(first.newTraces).toEqual([{ projectId, month: '2024-01', n: 1 }]);
    const again = await db.ds.transaction((m) => writeTelemetry(m, foldFacts([events[1], events[0]])));
    expect(again.newTraces).toEqual([]);
    const spans = await db.ds.transaction((m) =>
      writeTelemetry(
        m,
        facts({
          spans: [
            span(randomUUID(), '2024-02-01T00:00:00.000Z', 's1', { name: 'a' }),
            span(randomUUID(), '2024-02-01T00:00:00.000Z', 's2', { name: 'b' }),
          ],
        }),
      ),
    );
    expect(spans.newSpans).toEqual([{ projectId, month: '2024-02', n: 2 }]);
  });

  it('deletes a trace with its spans for good: later spans and a replay of the trace write nothing', async () => {
    const spanId = randomUUID();
    await db.ds.transaction((m) =>
      writeTelemetry(m, facts({ traces: events[0].traces, spans: [span(spanId, '2024-01-01T00:00:00.000Z', 's1', { name: 'a' })] })),
    );
    const deleted = await db.ds.transaction((m) => deleteTraces(m, [{ projectId, id: traceId, deletedAt: '2024-02-01T00:00:00.000Z' }]));
    expect(deleted).toEqual({ traces: 1, spans: 1, scores: 0 });
    const replay = await db.ds.transaction((m) =>
      writeTelemetry(m, foldFacts([...events, facts({ spans: [span(randomUUID(), '2024-03-01T00:00:00.000Z', 's2', { name: 'late' })] })])),
    );
    expect(replay).toEqual({ newTraces: [], newSpans: [] });
    expect(
      (await db.ds.query('SELECT count(*)::int AS n FROM traces')).concat(await db.ds.query('SELECT count(*)::int AS n FROM spans')),
    ).toEqual([{ n: 0 }, { n: 0 }]);
    expect(await db.ds.transaction((m) => deleteTraces(m, [{ projectId, id: traceId, deletedAt: '2024-02-01T00:00:00.000Z' }]))).toEqual({
      traces: 0,
      spans: 0,
      scores: 0,
    });
  });

  it('writes nothing of a trace its own batch deletes, and the rest of the batch', async () => {
    const otherTrace = randomUUID();
    const written = await db.ds.transaction((m) =>
      writeTelemetry(
        m,
        facts({
          traces: events[0].traces,
          spans: [
            span(randomUUID(), '2024-01-01T00:00:00.000Z', 's1', { name: 'gone' }),
            span(randomUUID(), '2024-01-01T00:00:00.000Z', 's2', { traceId: otherTrace, name: 'kept' }),
          ],
          deletions: [{ projectId, id: traceId, deletedAt: '2024-02-01T00:00:00.000Z' }],
        }),
      ),
    );
    expect(written).toEqual({ newTraces: [], newSpans: [{ projectId, month: '2024-01', n: 1 }] });
    expect(await db.ds.query('SELECT trace_id, name FROM spans')).toEqual([{ trace_id: otherTrace, name: 'kept' }]);
    expect(await db.ds.query('SELECT count(*)::int AS n FROM traces')).toEqual([{ n: 0 }]);
  });

  it('keeps the newer link of a run item whatever the order, deletes it with its trace, and never writes it again', async () => {
    const runId = randomUUID();
    const link = (iso: string, trace: string): RunItemDelta => ({
      projectId,
      id: runItemIdOf(runId, 'item-1'),
      runId,
      datasetItemId: 'item-1',
      traceId: trace,
      spanId: null,
      otelTraceId: null,
      otelSpanId: null,
      createdAt: iso,
      version: versionOf(iso, 'item-1'),
    });
    const otherTrace = randomUUID();
    const newer = link('2024-01-01T00:00:02.000Z', traceId);
    await db.ds.transaction((m) => writeTelemetry(m, facts({ runItems: [newer] })));
    await db.ds.transaction((m) => writeTelemetry(m, facts({ runItems: [link('2024-01-01T00:00:01.000Z', otherTrace)] })));
    expect(await db.ds.query('SELECT trace_id, created_at FROM dataset_run_items')).toEqual([
      { trace_id: traceId, created_at: new Date('2024-01-01T00:00:01.000Z') },
    ]);

    await db.ds.transaction((m) => deleteTraces(m, [{ projectId, id: traceId, deletedAt: '2024-02-01T00:00:00.000Z' }]));
    expect(await db.ds.query('SELECT count(*)::int AS n FROM dataset_run_items')).toEqual([{ n: 0 }]);
    await db.ds.transaction((m) => writeTelemetry(m, facts({ runItems: [newer] })));
    expect(await db.ds.query('SELECT count(*)::int AS n FROM dataset_run_items')).toEqual([{ n: 0 }]);
  });

  it('keeps a trace deleted under the id a native event gave its 32-hex id before that id named the OTel trace', async () => {
    const hex = 'ab8efff798038103d269b633813fc60c';
    const [legacyId] = legacyTraceIds(hex.toUpperCase());
    await db.ds.transaction((m) => deleteTraces(m, [{ projectId, id: legacyId, deletedAt: '2024-02-01T00:00:00.000Z' }]));
    const at = '2024-03-01T00:00:00.000Z';
    const later = nativeEventsToFacts(
      validateNativeBatch({
        batch: [
          { id: 'e1', type: 'span-create', timestamp: at, body: { id: 'late', traceId: hex.toUpperCase(), name: 'late', startTime: at } },
        ],
      }).events,
      { projectId, receivedAt: at },
    );
    expect(later.traces.map((t) => t.id)).toEqual([otelTraceUuid(hex)]);
    expect(await db.ds.transaction((m) => writeTelemetry(m, later))).toEqual({ newTraces: [], newSpans: [] });
    expect(await db.ds.query('SELECT count(*)::int AS n FROM spans')).toEqual([{ n: 0 }]);
    // Tombstoned under its id too, as any deleted trace is, for verify and every later batch.
    expect(
      await db.ds.query('SELECT id, deleted_at FROM deleted_traces WHERE project_id = $1 ORDER BY id = $2', [projectId, legacyId]),
    ).toEqual([
      { id: otelTraceUuid(hex), deleted_at: new Date('2024-02-01T00:00:00.000Z') },
      { id: legacyId, deleted_at: new Date('2024-02-01T00:00:00.000Z') },
    ]);
  });

  it('finds a trace by the first of its candidate ids the project has', async () => {
    const [canonical, legacy] = [randomUUID(), randomUUID()];
    const named = (id: string, name: string) => facts({ traces: [{ ...trace('2024-01-01T00:00:00.000Z', name, { name }), id }] });
    await db.ds.transaction((m) => writeTelemetry(m, foldFacts([named(canonical, 'canonical'), named(legacy, 'legacy')])));
    const queries = new TraceQueries(db.ds);
    expect((await queries.findOne(projectId, [canonical, legacy]))?.name).toBe('canonical');
    expect((await queries.findOne(projectId, [legacy, canonical]))?.name).toBe('legacy');
  });

  it('removes a hand score for good: a replay of the message that gave it writes nothing (issue 30)', async () => {
    const handTarget = { projectId, receivedAt: '2024-01-01T00:00:05.000Z' };
    const ids = { id: randomUUID(), traceId };
    const given = handScoreFacts(
      parseHandScoreMessage({
        op: 'upsert',
        changeId: randomUUID(),
        ...ids,
        name: 'tone',
        value: 'polite',
        dataType: 'CATEGORICAL',
        comment: '',
        authorUserId: 'u1',
        authorEmail: 'ann@example.com',
      }),
      handTarget,
    );
    const removed = handScoreFacts(parseHandScoreMessage({ op: 'delete', ...ids }), {
      ...handTarget,
      receivedAt: '2024-01-01T00:00:06.000Z',
    });
    const apiScore = {
      ...given.scores[0],
      id: randomUUID(),
      values: { ...given.scores[0].values, authorUserId: undefined, authorEmail: undefined },
    };
    await db.ds.transaction((m) => writeTelemetry(m, given));
    expect(await new TraceQueries(db.ds).scoreById(projectId, ids.id)).toMatchObject({
      source: 'ANNOTATION',
      author_email: 'ann@example.com',
    });
    await db.ds.transaction((m) => writeTelemetry(m, removed));
    await db.ds.transaction((m) => writeTelemetry(m, facts({ scores: [...given.scores, apiScore] })));
    expect(await new TraceQueries(db.ds).scoreById(projectId, ids.id)).toBeNull();
    expect(await new TraceQueries(db.ds).scoreById(projectId, apiScore.id)).not.toBeNull();
    // Given and removed in one batch: gone too.
    const again = { ...given.scores[0], id: randomUUID() };
    await db.ds.transaction((m) =>
      writeTelemetry(
        m,
        foldFacts([facts({ scores: [again] }), facts({ scoreDeletions: [{ ...removed.scoreDeletions[0], id: again.id }] })]),
      ),
    );
    expect(await new TraceQueries(db.ds).scoreById(projectId, again.id)).toBeNull();
  });

  it('keeps rows of different projects apart', async () => {
    await db.ds.transaction((m) => writeTelemetry(m, events[0]));
    expect(await new TraceQueries(db.ds).list({ projectId: randomUUID(), limit: 10 })).toEqual([]);
    expect(await new TraceQueries(db.ds).findOne(projectId, [traceId])).not.toBeNull();
  });

  describe('attributes that hold the input or output', () => {
    const prompt = 'the prompt, as the client sent it';
    const completion = 'the completion';
    const otlpSpan = (id: string) =>
      span(id, '2024-01-01T00:00:01.000Z', 'otlp', {
        name: 'chat',
        input: prompt,
        output: completion,
        attributes: { 'gen_ai.prompt': prompt, 'gen_ai.completion': completion, 'gen_ai.system': 'openai' },
      });
    const readAttributes = async (id: string) =>
      (await new TraceQueries(db.ds).spansOf(projectId, traceId)).find((r) => r.id === id)?.attributes;

    it('are stored once, in input and output, and read back whole', async () => {
      const id = randomUUID();
      await db.ds.transaction((m) => writeTelemetry(m, facts({ spans: [otlpSpan(id)] })));
      expect(await db.ds.query('SELECT attributes, input_attribute, output_attribute FROM spans WHERE id = $1', [id])).toEqual([
        { attributes: { 'gen_ai.system': 'openai' }, input_attribute: 'gen_ai.prompt', output_attribute: 'gen_ai.completion' },
      ]);
      expect(await readAttributes(id)).toEqual({ 'gen_ai.prompt': prompt, 'gen_ai.completion': completion, 'gen_ai.system': 'openai' });
    });

    it('keep what the client sent when a later event sets another input, and a duplicate changes nothing', async () => {
      const id = randomUUID();
      await db.ds.transaction((m) => writeTelemetry(m, facts({ spans: [otlpSpan(id)] })));
      await db.ds.transaction((m) => writeTelemetry(m, facts({ spans: [otlpSpan(id)] })));
      await db.ds.transaction((m) =>
        writeTelemetry(m, facts({ spans: [span(id, '2024-01-01T00:00:02.000Z', 'later', { input: 'another input' })] })),
      );
      const [row] = await new TraceQueries(db.ds).spansOf(projectId, traceId);
      expect(row).toMatchObject({
        input: 'another input',
        output: completion,
        attributes: { 'gen_ai.prompt': prompt, 'gen_ai.completion': completion, 'gen_ai.system': 'openai' },
      });
    });

    it('are stored whole again when SpanAttributeCopies is reverted', async () => {
      const migration = new (MIGRATIONS.find((m) => m.name === 'SpanAttributeCopies1766300000000') as new () => MigrationInterface)();
      const id = randomUUID();
      await db.ds.transaction((m) => writeTelemetry(m, facts({ spans: [otlpSpan(id)] })));
      const runner = db.ds.createQueryRunner();
      try {
        await migration.down(runner);
        expect(await db.ds.query('SELECT attributes FROM spans WHERE id = $1', [id])).toEqual([
          { attributes: { 'gen_ai.prompt': prompt, 'gen_ai.completion': completion, 'gen_ai.system': 'openai' } },
        ]);
      } finally {
        await migration.up(runner);
        await runner.release();
      }
    });
  });

  describe('versions', () => {
    const FIELDS = SPAN_FIELD_COLUMNS.map((c) => c.field);
    const EVENT_IDS = ['a', 'b', 'c'];

    /**
     * Every field an event can set, derived from the event: one event, one content, as for real
     * events. The attributes hold the input and output themselves, as OTLP conventions' do.
     */
    const contentOf = (k: number): SpanFields => {
      const input = [k];
      const output = { k };
      return { ...otherContentOf(k), input, output, attributes: { a: k, 'gen_ai.prompt': input, 'gen_ai.completion': output } };
    };
    const otherContentOf = (k: number): Omit<SpanFields, 'input' | 'output' | 'attributes'> => ({
      traceId: nativeId(`trace ${k}`).id,
      parentId: nativeId(`parent ${k}`).id,
      name: `name ${k}`,
      type: `type ${k}`,
      operation: `operation ${k}`,
      model: `model ${k}`,
      modelParameters: { k },
      promptTokens: k,
      completionTokens: k + 1,
      totalTokens: k + 2,
      usageDetails: { input: k, cached_input: k + 3 },
      cost: k / 4,
      costSource: `price:${k}`,
      costDetails: { input: k / 8 },
      unpricedUsage: k % 2 ? [] : ['input_audio', `type_${k}`],
      metadata: { m: k },
      startTime: new Date(Date.UTC(2024, 1, 1, 0, 0, k)).toISOString(),
      endTime: new Date(Date.UTC(2024, 1, 2, 0, 0, k)).toISOString(),
      level: SPAN_LEVELS[k % SPAN_LEVELS.length],
      statusMessage: `status ${k}`,
    });

    // Few seconds and event ids, so that versions often tie on the time and sometimes entirely.
    const eventArb = fc.record({
      second: fc.integer({ min: 0, max: 3 }),
      eventId: fc.constantFrom(...EVENT_IDS),
      fields: fc.subarray(FIELDS),
    });
    const deltaOf = (
      id: string,
      { second, eventId, fields }: { second: number; eventId: string; fields: (keyof SpanFields)[] },
    ): SpanDelta => {
      const content = contentOf(second * EVENT_IDS.length + EVENT_IDS.indexOf(eventId));
      const values = Object.fromEntries(fields.map((f) => [f, content[f]])) as Partial<SpanFields>;
      return {
        projectId,
        id,
        otelSpanId: null,
        externalId: null,
        createdAt: '2024-01-01T00:00:00.000Z',
        ...stamped(values, versionOf(`2024-01-01T00:00:0${second}.000Z`, eventId)),
      };
    };

    const writeSpans = (spans: SpanDelta[]) =>
      db.ds.transaction((m) => writeTelemetry(m, foldFacts(spans.map((s) => facts({ spans: [s] })))));
    /** The row as a reader sees it: attributes whole, whichever form they are stored in. */
    const storedRow = async (id: string) =>
      (
        await db.ds.query(
          `SELECT (to_jsonb(s) - 'id' - 'versions' - 'input_attribute' - 'output_attribute') || jsonb_build_object('attributes', ${SPAN_ATTRIBUTES('s')}) AS row
             FROM spans s WHERE project_id = $1 AND id = $2`,
          [projectId, id],
        )
      )[0].row;
    /** Each field's version as the upsert reads it: with whether its column holds a value. */
    const storedVersionsOf = async (id: string) =>
      (
        await db.ds.query(
          `SELECT jsonb_build_object(${SPAN_FIELD_COLUMNS.map((c) => `'${c.field}', spanlog_version_of(s.versions, '${c.field}', s."${c.column}" IS NOT NULL)`).join(', ')}) AS v
             FROM spans s WHERE s.project_id = $1 AND s.id = $2`,
          [projectId, id],
        )
      )[0].v;

    /** What the writer stored before UnsetFieldsUnnamed: `"*"`, and the fields it did not set named with null. */
    const UNSET_NAMED = withUnsetNamed('s', SPAN_FIELD_COLUMNS);

    it('merge a row in SQL as mergeVersioned folds its deltas, in any order and batching, over rows of every format', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(eventArb, { minLength: 1, maxLength: 6 }),
          fc.constantFrom('current', 'fieldByField', 'unsetNamed'),
          fc.array(fc.record({ key: fc.nat(), batchWithNext: fc.boolean() }), { minLength: 8, maxLength: 8 }),
          async (events, firstStoredFormat, shuffle) => {
            const id = randomUUID();
            const deltas = events.map((e) => deltaOf(id, e));
            const [first, ...rest] = deltas;
            const firstStoredOldFormat = firstStoredFormat !== 'current';
            if (firstStoredFormat === 'fieldByField') {
              await writeSpans([first]);
              // What the writer stored before CompactVersions: every field with its own version.
              await db.ds.query('UPDATE spans SET versions = $3 WHERE project_id = $1 AND id = $2', [
                projectId,
                id,
                JSON.stringify(first.versions),
              ]);
            } else if (firstStoredFormat === 'unsetNamed') {
              await writeSpans([first]);
              await db.ds.query(`UPDATE spans s SET versions = ${UNSET_NAMED} WHERE project_id = $1 AND id = $2`, [projectId, id]);
            }
            // Replays of the first two deltas too: merging is idempotent.
            const applied = [...(firstStoredOldFormat ? rest : deltas), ...deltas.slice(0, 2)]
              .map((d, i) => ({ d, ...shuffle[i] }))
              .sort((x, y) => x.key - y.key);
            for (let i = 0; i < applied.length;) {
              let end = i + 1;
              while (end < applied.length && applied[end - 1].batchWithNext) end++;
              await writeSpans(applied.slice(i, end).map((x) => x.d));
              i = end;
            }

            const folded = deltas.reduce((a, b) => ({ ...a, ...mergeVersioned(a, b) }));
            expect(await storedVersionsOf(id)).toEqual(Object.fromEntries(FIELDS.map((f) => [f, folded.versions[f] ?? null])));
            const fresh = randomUUID();
            await writeSpans([{ ...folded, id: fresh }]);
            expect(await storedRow(id)).toEqual(await storedRow(fresh));
          },
        ),
        { numRuns: 80 },
      );
    });

    it('keep the operation in its column, the newer version winning in either order (issue 26)', async () => {
      const older = deltaOf(randomUUID(), { second: 1, eventId: 'a', fields: ['operation', 'type'] });
      const newer = { ...deltaOf(older.id, { second: 2, eventId: 'a', fields: ['operation'] }), id: older.id };
      for (const order of [
        [older, newer],
        [newer, older],
      ]) {
        const id = randomUUID();
        for (const delta of order) await writeSpans([{ ...delta, id }]);
        const [row] = await db.ds.query('SELECT operation, type FROM spans WHERE project_id = $1 AND id = $2', [projectId, id]);
        expect(row).toEqual({ operation: newer.values.operation, type: older.values.type });
      }
    });

    const migrationNamed = (name: string) => new (MIGRATIONS.find((m) => m.name === name) as new () => MigrationInterface)();

    it('store one version for the fields one event set, and none for those it left NULL', async () => {
      const id = randomUUID();
      await writeSpans([deltaOf(id, { second: 1, eventId: 'a', fields: FIELDS.filter((f) => f !== 'model') })]);
      const [{ versions }] = await db.ds.query('SELECT versions FROM spans WHERE project_id = $1 AND id = $2', [projectId, id]);
      expect(versions).toEqual({ '*': versionOf('2024-01-01T00:00:01.000Z', 'a') });
      // An older event's model fills the field the row holds no version for.
      await writeSpans([deltaOf(id, { second: 0, eventId: 'a', fields: ['model', 'name'] })]);
      const [row] = await db.ds.query('SELECT model, name, versions FROM spans WHERE project_id = $1 AND id = $2', [projectId, id]);
      // Merged in SQL, the row still names no field it leaves NULL.
      expect(row).toEqual({
        model: 'model 0',
        name: 'name 3',
        versions: { '*': versionOf('2024-01-01T00:00:01.000Z', 'a'), model: versionOf('2024-01-01T00:00:00.000Z', 'a') },
      });
    });

    it('name the unset fields with null again when UnsetFieldsUnnamed is reverted', async () => {
      const migration = migrationNamed('UnsetFieldsUnnamed1767200000000');
      const delta = deltaOf(randomUUID(), { second: 1, eventId: 'a', fields: FIELDS.filter((f) => f !== 'model' && f !== 'cost') });
      await writeSpans([delta]);
      const runner = db.ds.createQueryRunner();
      try {
        await migration.down(runner);
        const [{ versions }] = await db.ds.query('SELECT versions FROM spans WHERE project_id = $1 AND id = $2', [projectId, delta.id]);
        expect(versions).toEqual({ '*': versionOf('2024-01-01T00:00:01.000Z', 'a'), model: null, cost: null });
      } finally {
        await migration.up(runner);
        await runner.release();
      }
    });

    it('are spelled out field by field when CompactVersions is reverted', async () => {
      // Reverted in order: UnsetFieldsUnnamed first names the unset fields with null again.
      const migrations = [migrationNamed('UnsetFieldsUnnamed1767200000000'), migrationNamed('CompactVersions1764300000000')];
      // `operation`, `usageDetails`, the cost's source and details and the unpriced usage came later (SpanOperation, SpanUsageDetails, SpanCostSource, UnpricedUsage): the down migration spells out the columns it knew.
      const later = ['model', 'operation', 'usageDetails', 'costSource', 'costDetails', 'unpricedUsage'];
      const delta = deltaOf(randomUUID(), { second: 1, eventId: 'a', fields: FIELDS.filter((f) => !later.includes(f)) });
      await writeSpans([delta]);
      const runner = db.ds.createQueryRunner();
      try {
        for (const migration of migrations) await migration.down(runner);
        const [{ versions }] = await db.ds.query('SELECT versions FROM spans WHERE project_id = $1 AND id = $2', [projectId, delta.id]);
        expect(versions).toEqual(delta.versions);
      } finally {
        for (const migration of [...migrations].reverse()) await migration.up(runner);
        await runner.release();
      }
    });
  });
});
