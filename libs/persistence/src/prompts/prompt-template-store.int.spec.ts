import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { PromptVersionInput } from '@app/domain';
import { seedProject, useTestDatabase } from '../testing/test-database';
import { PromptTemplateStore } from './prompt-template-store';

const KEY = randomUUID();

const input = (name: string, over: Partial<PromptVersionInput> = {}): PromptVersionInput => ({
  name,
  template: `text of ${name}`,
  labels: [],
  config: {},
  commitMessage: null,
  ...over,
});

describe(PromptTemplateStore.name, () => {
  const db = useTestDatabase();
  let store: PromptTemplateStore;

  /** A project of its own for each test, so no test sees another's templates. */
  const newProject = async (): Promise<string> => (await seedProject(db.ds)).projectId;

  beforeAll(async () => {
    store = new PromptTemplateStore(db.ds);
  });

  it('numbers concurrent pushes of one name 1..n in commit order, over several connections', async () => {
    const project = await newProject();
    const pushed = await Promise.all(
      Array.from({ length: 12 }, (_, i) => store.push(project, input('busy', { commitMessage: `push ${i}` }), KEY)),
    );
    expect(pushed.map((p) => p.version.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    const rows: { version: number; created_at: Date }[] = await db.ds.query(
      'SELECT version, created_at FROM prompt_versions WHERE project_id = $1 ORDER BY version',
      [project],
    );
    expect(rows.map((r) => r.created_at.getTime())).toEqual([...rows.map((r) => r.created_at.getTime())].sort((a, b) => a - b));
  });

  it('keeps names and projects apart', async () => {
    const [a, b] = [await newProject(), await newProject()];
    await store.push(a, input('x'), KEY);
    expect((await store.push(a, input('y'), KEY)).version.version).toBe(1);
    expect((await store.push(b, input('x'), KEY)).version.version).toBe(1);
    expect(await store.resolve(b, 'y', { by: 'default' })).toBeNull();
  });

  it('moves a label to the newest version that names it and reports where it came from', async () => {
    const project = await newProject();
    const first = await store.push(project, input('greet', { labels: ['production', 'staging'] }), KEY);
    expect(first.labelMoves).toEqual([
      { label: 'production', fromVersion: null },
      { label: 'staging', fromVersion: null },
    ]);
    const second = await store.push(project, input('greet', { labels: ['staging'] }), KEY);
    expect(second.labelMoves).toEqual([{ label: 'staging', fromVersion: 1 }]);
    expect(second.version.labels).toEqual(['staging']);
    expect(await store.resolve(project, 'greet', { by: 'version', version: 1 })).toMatchObject({
      version: { version: 1, labels: ['production'] },
      isLatest: false,
    });
    expect(await store.resolve(project, 'greet', { by: 'label', label: 'staging' })).toMatchObject({
      version: { version: 2, labels: ['staging'] },
      isLatest: true,
    });
  });

  it('resolves production by default when a version has it, else the newest; null when nothing matches', async () => {
    const project = await newProject();
    await store.push(project, input('p'), KEY);
    await store.push(project, input('p'), KEY);
    expect((await store.resolve(project, 'p', { by: 'default' }))?.version.version).toBe(2);
    await store.push(project, input('p', { labels: ['production'] }), KEY);
    await store.push(project, input('p'), KEY);
    expect((await store.resolve(project, 'p', { by: 'default' }))?.version.version).toBe(3);
    expect((await store.resolve(project, 'p', { by: 'label', label: 'latest' }))?.version.version).toBe(4);
    expect(await store.resolve(project, 'p', { by: 'version', version: 5 })).toBeNull();
    expect(await store.resolve(project, 'p', { by: 'label', label: 'staging' })).toBeNull();
    expect(await store.resolve(project, 'nope', { by: 'default' })).toBeNull();
  });

  it('keeps text and chat templates and their config as sent', async () => {
    const project = await newProject();
    const chat = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: '{{question}} — ünïcode 😀' },
    ];
    await store.push(
      project,
      input('chat', { template: chat, config: { model: 'm', nested: { t: [1, 0.5] } }, commitMessage: 'first' }),
      KEY,
    );
    expect((await store.resolve(project, 'chat', { by: 'default' }))?.version).toMatchObject({
      template: chat,
      config: { model: 'm', nested: { t: [1, 0.5] } },
      commitMessage: 'first',
    });
  });

  it('lists names in byte order a page at a time, with their labels and latest', async () => {
    const project = await newProject();
    for (const name of ['b', 'a', 'B', 'c']) await store.push(project, input(name), KEY);
    const last = await store.push(project, input('a', { labels: ['production'] }), KEY);
    const first = await store.list(project, null, 2);
    expect(first).toEqual([
      { name: 'B', latestVersion: 1, labels: ['latest'], updatedAt: expect.any(String) },
      { name: 'a', latestVersion: 2, labels: ['latest', 'production'], updatedAt: last.version.createdAt },
    ]);
    expect((await store.list(project, 'a', 2)).map((s) => s.name)).toEqual(['b', 'c']);
    expect(await store.list(project, 'c', 2)).toEqual([]);
  });
});
