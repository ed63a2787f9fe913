import 'reflect-metadata';
import type { DatasetItemInput } from '@app/domain';
import { seedProject, useTestDatabase } from '../testing/test-database';
import { DatasetStore } from './dataset-store';

const item = (id: string, over: Partial<DatasetItemInput> = {}): DatasetItemInput => ({
  id,
  input: { question: id },
  expectedOutput: `answer ${id}`,
  metadata: null,
  sourceTraceId: null,
  sourceSpanId: null,
  status: 'ACTIVE',
  ...over,
});

describe(DatasetStore.name, () => {
  const db = useTestDatabase();
  let store: DatasetStore;

  /** A project of its own for each test, so no test sees another's datasets. */
  const newProject = async (): Promise<string> => (await seedProject(db.ds)).projectId;
  const page = { page: 1, limit: 50 };
  const versions = async (projectId: string) =>
    (await db.ds.query('SELECT count(*)::int AS n FROM dataset_item_versions WHERE project_id = $1', [projectId]))[0].n as number;

  beforeAll(() => {
    store = new DatasetStore(db.ds);
  });

  it('creates a dataset once per name and updates only what a later save gives', async () => {
    const project = await newProject();
    const first = await store.upsert(project, { name: 'qa', description: 'questions', metadata: { v: 1 } });
    const again = await store.upsert(project, { name: 'qa', metadata: { v: 2 } });
    expect(again).toMatchObject({ id: first.id, name: 'qa', description: 'questions', metadata: { v: 2 } });
    expect((await store.list(project, page)).totalItems).toBe(1);
    expect(await store.find(project, 'qa')).toEqual(again);
    expect(await store.find(await newProject(), 'qa')).toBeNull();
  });

  it('keeps every version of an item, adds none for an unchanged push, and reads the dataset as it was at a time', async () => {
    const project = await newProject();
    const dataset = await store.upsert(project, { name: 'history' });
    await store.upsertItems(project, dataset, [item('a'), item('b')]);
    const [{ at: firstState }] = await db.ds.query('SELECT clock_timestamp() AS at');
    await store.upsertItems(project, dataset, [item('a'), item('b')]);
    expect(await versions(project)).toBe(2);

    const [changed] = await store.upsertItems(project, dataset, [item('a', { expectedOutput: 'a better answer', status: 'ARCHIVED' })]);
    expect(changed).toMatchObject({ id: 'a', expectedOutput: 'a better answer', status: 'ARCHIVED', datasetName: 'history' });
    await store.upsertItems(project, dataset, [item('c')]);
    expect(await versions(project)).toBe(4);

    const now = await store.items(project, dataset.id, null, page);
    expect(now.data.map((i) => [i.id, i.expectedOutput, i.status])).toEqual([
      ['a', 'a better answer', 'ARCHIVED'],
      ['b', 'answer b', 'ACTIVE'],
      ['c', 'answer c', 'ACTIVE'],
    ]);
    const then = await store.items(project, dataset.id, (firstState as Date).toISOString(), page);
    expect(then.totalItems).toBe(2);
    expect(then.data.map((i) => [i.id, i.expectedOutput, i.status])).toEqual([
      ['a', 'answer a', 'ACTIVE'],
      ['b', 'answer b', 'ACTIVE'],
    ]);
    expect(await store.items(project, dataset.id, '2000-01-01T00:00:00Z', page)).toEqual({ data: [], totalItems: 0 });
  });

  it('pages items in the order they were added, with the total', async () => {
    const project = await newProject();
    const dataset = await store.upsert(project, { name: 'paged' });
    await store.upsertItems(
      project,
      dataset,
      ['x', 'y', 'z'].map((id) => item(id)),
    );
    const second = await store.items(project, dataset.id, null, { page: 2, limit: 2 });
    expect(second).toMatchObject({ totalItems: 3, data: [{ id: 'z' }] });
  });

  it('lists the new items of one request in the order it sent them, whatever their ids, and each before its first version', async () => {
    const project = await newProject();
    const dataset = await store.upsert(project, { name: 'imported' });
    const ids = ['m', 'b', 'z', 'a'];
    const stored = await store.upsertItems(
      project,
      dataset,
      ids.map((id) => item(id)),
    );
    expect((await store.items(project, dataset.id, null, { page: 1, limit: 10 })).data.map((i) => i.id)).toEqual(ids);
    for (const i of stored) expect(Date.parse(i.createdAt)).toBeLessThanOrEqual(Date.parse(i.updatedAt));
  });

  it('refuses an item id that another dataset of the project holds, and finds an item only in its own project', async () => {
    const project = await newProject();
    const one = await store.upsert(project, { name: 'one' });
    const two = await store.upsert(project, { name: 'two' });
    await store.upsertItems(project, one, [item('shared')]);
    await expect(store.upsertItems(project, two, [item('shared')])).rejects.toThrow(
      'id: item "shared" belongs to another dataset of this project; item ids are unique in a project',
    );
    expect(await store.item(project, 'shared')).toMatchObject({ id: 'shared', datasetId: one.id });
    expect(await store.item(await newProject(), 'shared')).toBeNull();
  });

  it('creates a run by name once and updates the description a later item gives', async () => {
    const project = await newProject();
    const dataset = await store.upsert(project, { name: 'runs' });
    const first = await store.upsertRun(project, dataset, { runName: 'baseline', runDescription: 'first' });
    const again = await store.upsertRun(project, dataset, { runName: 'baseline', metadata: { model: 'm' } });
    expect(again).toMatchObject({ id: first.id, description: 'first', metadata: { model: 'm' }, datasetName: 'runs' });
    expect(await store.run(project, dataset.id, 'baseline')).toEqual(again);
    expect((await store.runs(project, dataset.id, page)).data.map((r) => r.name)).toEqual(['baseline']);
  });
});
