import 'reflect-metadata';
import type { ScoreConfigSettings } from '@app/domain';
import { seedProject, useTestDatabase } from '../testing/test-database';
import { ScoreConfigStore } from './score-config-store';

const numeric: ScoreConfigSettings = {
  name: 'accuracy',
  dataType: 'NUMERIC',
  minValue: 0,
  maxValue: 1,
  categories: [],
  description: 'how right',
};
const categorical: ScoreConfigSettings = {
  name: 'tone',
  dataType: 'CATEGORICAL',
  minValue: null,
  maxValue: null,
  categories: [
    { label: 'polite', value: 1 },
    { label: 'rude', value: 0 },
  ],
  description: null,
};

describe(ScoreConfigStore.name, () => {
  const db = useTestDatabase();
  const store = () => new ScoreConfigStore(db.ds);
  const newProject = async (): Promise<string> => (await seedProject(db.ds)).projectId;

  it('stores a config as given and reads it back, by id and in the list', async () => {
    const projectId = await newProject();
    const created = await store().create(projectId, categorical);
    expect(created).toEqual({
      ...categorical,
      id: expect.any(String),
      projectId,
      archived: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(await store().get(projectId, created.id)).toEqual(created);
    expect(await store().list(projectId)).toEqual([created]);
    expect(await store().get(await newProject(), created.id)).toBeNull();
  });

  it('refuses a second config of one name in a project, naming the field; another project may use it', async () => {
    const projectId = await newProject();
    await store().create(projectId, numeric);
    await expect(store().create(projectId, { ...numeric, dataType: 'BOOLEAN', minValue: null, maxValue: null })).rejects.toThrow(
      'name: a score config named "accuracy" already exists in this project',
    );
    await expect(store().create(await newProject(), numeric)).resolves.toMatchObject({ name: 'accuracy' });
  });

  it('updates, archives and restores; only configs in force check scores', async () => {
    const projectId = await newProject();
    const a = await store().create(projectId, numeric);
    const b = await store().create(projectId, categorical);
    expect(await store().update(projectId, a.id, { ...numeric, maxValue: 10 })).toMatchObject({ maxValue: 10 });
    expect([...(await store().inForce(projectId, ['accuracy', 'tone', 'other'])).keys()].sort()).toEqual(['accuracy', 'tone']);
    expect(await store().setArchived(projectId, b.id, true)).toMatchObject({ archived: true });
    expect([...(await store().inForce(projectId, ['accuracy', 'tone'])).keys()]).toEqual(['accuracy']);
    await store().setArchived(projectId, b.id, false);
    expect((await store().inForce(projectId, ['tone'])).get('tone')).toMatchObject({ categories: categorical.categories });
    // A client's name as it will be stored: Postgres refuses NUL in a text parameter.
    expect([...(await store().inForce(projectId, ['accu\u0000racy', '\u0000'])).keys()]).toEqual(['accuracy']);
    expect(await store().update(await newProject(), a.id, numeric)).toBeNull();
  });

  it('pages newest first with the total, as Langfuse lists them', async () => {
    const projectId = await newProject();
    for (const name of ['a', 'b', 'c']) await store().create(projectId, { ...numeric, name });
    const first = await store().page(projectId, 1, 2);
    const second = await store().page(projectId, 2, 2);
    expect(first.total).toBe(3);
    expect([...first.items, ...second.items].map((c) => c.name)).toEqual(['c', 'b', 'a']);
  });
});
