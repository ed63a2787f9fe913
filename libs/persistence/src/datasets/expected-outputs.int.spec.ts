import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { DatasetItemInput } from '@app/domain';
import { seedProject, useTestDatabase } from '../testing/test-database';
import { DatasetStore } from './dataset-store';
import { ExpectedOutputs } from './expected-outputs';

const item = (id: string, expectedOutput: string): DatasetItemInput => ({
  id,
  input: null,
  expectedOutput,
  metadata: null,
  sourceTraceId: null,
  sourceSpanId: null,
  status: 'ACTIVE',
});

describe(ExpectedOutputs.name, () => {
  const db = useTestDatabase();

  it("reads the linked item as the run linked it: a span's own link first, else its trace's; a trace's own link first", async () => {
    const { projectId } = await seedProject(db.ds);
    const datasets = new DatasetStore(db.ds);
    const dataset = await datasets.upsert(projectId, { name: 'qa' });
    await datasets.upsertItems(projectId, dataset, [item('whole', 'the trace'), item('step', 'the span')]);
    const [{ at: linkedAt }] = await db.ds.query('SELECT clock_timestamp() AS at');
    // Changed after the run linked it: the experiment read the earlier version.
    await datasets.upsertItems(projectId, dataset, [item('whole', 'changed later')]);
    const [trace, span, other] = [randomUUID(), randomUUID(), randomUUID()];
    const link = (itemId: string, spanId: string | null) =>
      db.ds.query(
        `INSERT INTO dataset_run_items (project_id, id, run_id, dataset_item_id, trace_id, span_id, created_at, version)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'v')`,
        [projectId, randomUUID(), randomUUID(), itemId, trace, spanId, linkedAt],
      );
    const outputs = new ExpectedOutputs(db.ds);

    expect(await outputs.of(projectId, { traceId: trace, spanId: span })).toBeNull();
    await link('step', span);
    // A trace whose only link names a span is still in the experiment.
    expect(await outputs.of(projectId, { traceId: trace, spanId: null })).toBe('the span');
    await link('whole', null);
    expect(await outputs.of(projectId, { traceId: trace, spanId: null })).toBe('the trace');
    expect(await outputs.of(projectId, { traceId: trace, spanId: span })).toBe('the span');
    expect(await outputs.of(projectId, { traceId: trace, spanId: other })).toBe('the trace');
    expect(await outputs.of((await seedProject(db.ds)).projectId, { traceId: trace, spanId: null })).toBeNull();
  });
});
