import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Evaluator, EvaluatorSettings } from '@app/domain';
import { SecretBox, SecretBoxError } from '../secrets/secret-box';
import { seedProject, useTestDatabase } from '../testing/test-database';
import { EvaluatorStore } from './evaluator-store';

const settings = (over: Partial<EvaluatorSettings> = {}): EvaluatorSettings => ({
  name: 'relevance',
  kind: 'webhook',
  judge: null,
  url: 'https://eval.example.com/score',
  headers: { Authorization: 'Bearer secret' },
  timeoutMs: 10_000,
  retries: 1,
  filter: { spanTypes: ['LLM'], names: [], sampleRate: 1, tags: [], environments: [] },
  enabled: true,
  target: 'span',
  quietSeconds: 30,
  ...over,
});

describe(EvaluatorStore.name, () => {
  const db = useTestDatabase();
  let store: EvaluatorStore;
  const box = new SecretBox(randomBytes(32));

  /** A project of its own for each test, so no test sees another's evaluators. */
  const newProject = async (): Promise<string> => (await seedProject(db.ds)).projectId;

  beforeAll(async () => {
    store = new EvaluatorStore(db.ds, box);
  });

  const stored = async (projectId: string, id: string) => (await store.list(projectId)).find((e) => e.id === id) ?? null;
  /** An evaluator as created, without the signing secret only the creation's answer shows. */
  const create = async (projectId: string, s: EvaluatorSettings): Promise<Evaluator> => {
    const { signingSecret: _shownOnce, ...evaluator } = await store.create(projectId, s);
    return evaluator;
  };
  const rawRow = async (id: string) =>
    (await db.ds.query('SELECT headers, headers_sealed, signing_secret_sealed FROM evaluators WHERE id = $1', [id]))[0];
  /** A row as a version before sealing stored it: header values in plaintext, no signing secret. */
  const plaintextRow = async (projectId: string, headers: Record<string, string>): Promise<string> => {
    const [{ id }] = await db.ds.query(
      `INSERT INTO evaluators (project_id, name, url, headers, timeout_ms, retries, filter) VALUES ($1, $2, 'https://eval.example.com/', $3, 10000, 1, $4) RETURNING id`,
      [projectId, `old ${randomUUID()}`, JSON.stringify(headers), JSON.stringify({ spanTypes: ['LLM'], names: [], sampleRate: 1 })],
    );
    return id;
  };

  it('stores an evaluator and reads it back as the domain shape, dates as ISO strings', async () => {
    const projectId = await newProject();
    const { signingSecret, ...created } = await store.create(projectId, settings());
    expect(created).toEqual({
      id: expect.any(String),
      projectId,
      ...settings(),
      createdAt: expect.any(String),
      updatedAt: created.createdAt,
    });
    expect(signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
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
    const created = await create(
      projectId,
      settings({ filter: { spanTypes: ['LLM', 'TOOL'], names: ['chat'], sampleRate: 1, tags: [], environments: [] } }),
    );
    const updated = await store.update(projectId, created.id, {
      timeoutMs: 2_000,
      filter: { sampleRate: 0.5 },
      headers: { 'X-Key': 'k' },
      enabled: false,
    });
    expect(updated).toEqual({
      ...created,
      timeoutMs: 2_000,
      headers: { 'X-Key': 'k' },
      filter: { spanTypes: ['LLM', 'TOOL'], names: ['chat'], sampleRate: 0.5, tags: [], environments: [] },
      enabled: false,
      updatedAt: expect.any(String),
    });
    expect(Date.parse(updated!.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    expect(await stored(projectId, created.id)).toEqual(updated);
  });

  it('stores the target and quiet window, and reads a filter saved before trace filters as matching any trace', async () => {
    const projectId = await newProject();
    const created = await create(projectId, settings({ target: 'trace', quietSeconds: 5 }));
    expect(created).toMatchObject({ target: 'trace', quietSeconds: 5 });
    expect(await store.update(projectId, created.id, { target: 'span' })).toMatchObject({ target: 'span', quietSeconds: 5 });
    await db.ds.query(`UPDATE evaluators SET filter = '{"spanTypes":["LLM"],"names":[],"sampleRate":1}' WHERE id = $1`, [created.id]);
    expect((await stored(projectId, created.id))?.filter).toEqual({
      spanTypes: ['LLM'],
      names: [],
      sampleRate: 1,
      tags: [],
      environments: [],
    });
  });

  it('refuses a rename onto another evaluator’s name', async () => {
    const projectId = await newProject();
    await store.create(projectId, settings({ name: 'a' }));
    const b = await store.create(projectId, settings({ name: 'b' }));
    await expect(store.update(projectId, b.id, { name: 'a' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/^name: an evaluator named "a"/),
    });
    await expect(store.update(projectId, b.id, { name: 'b' })).resolves.toMatchObject({ name: 'b' });
  });

  it('answers null or false for an evaluator the project does not have, and leaves other projects alone', async () => {
    const projectId = await newProject();
    const other = await create(await newProject(), settings());
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

  it('keeps header values and the signing secret sealed, each bound to its row, and opens them for a call', async () => {
    const projectId = await newProject();
    const a = await store.create(projectId, settings({ name: 'a' }));
    const b = await store.create(projectId, settings({ name: 'b', headers: { Authorization: 'Bearer other' } }));
    const row = await rawRow(a.id);
    expect(row.headers).toBeNull();
    for (const sealed of [row.headers_sealed, row.signing_secret_sealed]) {
      expect(sealed).toMatch(/^v1\./);
      expect(sealed).not.toMatch(/Bearer|whsec_/);
      expect(sealed).not.toContain(a.signingSecret.slice(6, 20));
    }
    expect(await store.secrets(a.id)).toEqual({ headers: { Authorization: 'Bearer secret' }, signingSecret: a.signingSecret });
    // A sealed value copied into another row does not open there.
    await db.ds.query('UPDATE evaluators SET headers_sealed = $2 WHERE id = $1', [b.id, row.headers_sealed]);
    await expect(store.secrets(b.id)).rejects.toBeInstanceOf(SecretBoxError);
    expect(await store.secrets(randomUUID())).toBeNull();
  });

  it('seals a row an older version stored in plaintext before it reads it, giving it a signing secret', async () => {
    const projectId = await newProject();
    const id = await plaintextRow(projectId, { Authorization: 'Bearer legacy' });
    expect((await stored(projectId, id))?.headers).toEqual({ Authorization: 'Bearer legacy' });
    const row = await rawRow(id);
    expect(row.headers).toBeNull();
    expect(row.headers_sealed).not.toContain('legacy');
    expect(await store.secrets(id)).toEqual({
      headers: { Authorization: 'Bearer legacy' },
      signingSecret: expect.stringMatching(/^whsec_/),
    });
    // The worker finds it in plaintext too, if no API read it first.
    const unread = await plaintextRow(projectId, { 'X-Key': 'k' });
    expect(await store.secrets(unread)).toEqual({ headers: { 'X-Key': 'k' }, signingSecret: expect.stringMatching(/^whsec_/) });
  });

  it('seals every plaintext row before serving, and refuses a key that does not open what is stored', async () => {
    const projectId = await newProject();
    const id = await plaintextRow(projectId, { Authorization: 'Bearer at-start' });
    expect(await store.prepare()).toBeGreaterThanOrEqual(1);
    expect((await rawRow(id)).headers).toBeNull();
    expect(await store.prepare()).toBe(0);
    // A wrong key is refused before it seals anything: a row still in plaintext stays readable with the right one.
    const waiting = await plaintextRow(projectId, { Authorization: 'Bearer meanwhile' });
    await expect(new EvaluatorStore(db.ds, new SecretBox(randomBytes(32))).prepare()).rejects.toThrow(
      /SPANLOG_SECRET_KEY does not open the evaluator secrets stored in this database/,
    );
    expect(await rawRow(waiting)).toMatchObject({ headers: { Authorization: 'Bearer meanwhile' }, headers_sealed: null });
    expect(await store.prepare()).toBe(1);
  });

  it('gives an evaluator a new signing secret in place of the old one', async () => {
    const projectId = await newProject();
    const created = await store.create(projectId, settings());
    const rotated = await store.rotateSecret(projectId, created.id);
    expect(rotated?.signingSecret).toMatch(/^whsec_/);
    expect(rotated?.signingSecret).not.toBe(created.signingSecret);
    expect((await store.secrets(created.id))?.signingSecret).toBe(rotated?.signingSecret);
    expect(await store.rotateSecret(await newProject(), created.id)).toBeNull();
  });
});
