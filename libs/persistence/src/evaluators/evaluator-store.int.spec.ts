import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { EvaluatorSettings } from '@app/domain';
import { type TestDatabase, createTestDatabase } from '../testing/test-database';
import { EvaluatorStore } from './evaluator-store';

const settings = (over: Partial<EvaluatorSettings> = {}): EvaluatorSettings => ({
  name: 'relevance',
  url: 'https://eval.example.com/score',
  headers: { Authorization: 'Bearer secret' },
  timeoutMs: 10_000,
  retries: 1,
  filter: { spanTypes: ['LLM'], names: [], sampleRate: 1 },
  enabled: true,
  ...over,
});

describe(EvaluatorStore.name, () => {
  let db: TestDatabase;
  let ds: DataSource;
  let store: EvaluatorStore;

  /** A project of its own for each test, so no test sees another's evaluators. */
  const newProject = async (): Promise<string> => {
    const [org] = await ds.query(`INSERT INTO organizations (name) VALUES ($1) RETURNING id`, [`org ${randomUUID()}`]);
    const [project] = await ds.query(`INSERT INTO projects (org_id, name) VALUES ($1, 'p') RETURNING id`, [org.id]);
    return project.id;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = db.ds;
    store = new EvaluatorStore(ds);
  });

  afterAll(() => db?.drop());

  const stored = async (projectId: string, id: string) => (await store.list(projectId)).find((e) => e.id === id) ?? null;

  it('stores an evaluator and reads it back as the domain shape, dates as ISO strings', async () => {
    const projectId = await newProject();
    const created = await store.create(projectId, settings());
    expect(created).toEqual({ id: expect.any(String), projectId, ...settings(), createdAt: expect.any(String), updatedAt: created.createdAt });
    expect(new Date(created.createdAt).toISOString()).toBe(created.createdAt);
    expect(await stored(projectId, created.id)).toEqual(created);
  });

  it('refuses a second evaluator of the same name in a project, naming the field, but not in another project', async () => {
    const projectId = await newProject();
    await store.create(projectId, settings());
    await expect(store.create(projectId, settings({ url: 'https://other.example.com/' }))).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'name: an evaluator named "relevance" already exists in this project',
    });
    await expect(store.create(await newProject(), settings())).resolves.toMatchObject({ name: 'relevance' });
  });

  it('lists a project’s evaluators by name, and only that project’s', async () => {
    const projectId = await newProject();
    for (const name of ['toxicity', 'accuracy', 'relevance']) await store.create(projectId, settings({ name }));
    await store.create(await newProject(), settings({ name: 'elsewhere' }));
    expect((await store.list(projectId)).map((e) => e.name)).toEqual(['accuracy', 'relevance', 'toxicity']);
    expect(await store.list(await newProject())).toEqual([]);
  });

  it('changes only the fields given, merges filter members, replaces headers and moves updatedAt', async () => {
    const projectId = await newProject();
    const created = await store.create(projectId, settings({ filter: { spanTypes: ['LLM', 'TOOL'], names: ['chat'], sampleRate: 1 } }));
    const updated = await store.update(projectId, created.id, { timeoutMs: 2_000, filter: { sampleRate: 0.5 }, headers: { 'X-Key': 'k' }, enabled: false });
    expect(updated).toEqual({
      ...created,
      timeoutMs: 2_000,
      headers: { 'X-Key': 'k' },
      filter: { spanTypes: ['LLM', 'TOOL'], names: ['chat'], sampleRate: 0.5 },
      enabled: false,
      updatedAt: expect.any(String),
    });
    expect(Date.parse(updated!.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    expect(await stored(projectId, created.id)).toEqual(updated);
  });

  it('refuses a rename onto another evaluator’s name', async () => {
    const projectId = await newProject();
    await store.create(projectId, settings({ name: 'a' }));
    const b = await store.create(projectId, settings({ name: 'b' }));
    await expect(store.update(projectId, b.id, { name: 'a' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^name: an evaluator named "a"/) });
    await expect(store.update(projectId, b.id, { name: 'b' })).resolves.toMatchObject({ name: 'b' });
  });

  it('answers null or false for an evaluator the project does not have, and leaves other projects alone', async () => {
    const projectId = await newProject();
    const other = await store.create(await newProject(), settings());
    expect(await stored(projectId, other.id)).toBeNull();
    expect(await store.update(projectId, other.id, { enabled: false })).toBeNull();
    expect(await store.delete(projectId, other.id)).toBe(false);
    expect(await stored(other.projectId, other.id)).toEqual(other);
  });

  it('deletes once', async () => {
    const projectId = await newProject();
    const created = await store.create(projectId, settings());
    expect(await store.delete(projectId, created.id)).toBe(true);
    expect(await store.delete(projectId, created.id)).toBe(false);
    expect(await store.list(projectId)).toEqual([]);
  });
});
