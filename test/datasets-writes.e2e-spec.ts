import type { RunResults } from '../apps/api/src/datasets/datasets.service';
import { type Tenant, bootstrap, data, eventually, login, mutate, query, rawRequest, send } from './support/api';
import { type Stack, startStack } from './support/stack';

const MB = 1024 * 1024;

/**
 * Issue 31's writes from the dashboard (`dataset.create|upsertItems|checkItems|archiveItem`):
 * the REST push's rules, limits and audit for a signed-in member; and scores of a run as a
 * whole (Langfuse's `datasetRunId`), kept with the run and shown in its results.
 */
describe('dataset writes and run-level scores', () => {
  let stack: Stack;
  let tenant: Tenant;
  let token: string;
  let outsider: string;

  const rpc = (procedure: string, input: Record<string, unknown>, as = token) =>
    mutate(stack, as, procedure, { projectId: tenant.projectId, ...input });
  /** The organization's audit events; they arrive through the AUDIT stream, so a read waits for `done`. */
  const auditUntil = (done: (actions: { action: string }[]) => boolean) =>
    eventually(async () => data(await query(stack, token, 'auditLog.list', { orgId: tenant.orgId })).data as { action: string }[], done);
  /** A call whose headers declare a body of `bytes` and send none: a limit below it answers 413 at once. */
  const declaredBody = (procedure: string, bytes: number) =>
    rawRequest(
      stack,
      `POST /api/trpc/${procedure} HTTP/1.1\r\nHost: spanlog\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${bytes}\r\nConnection: close\r\n\r\n`,
    );
  const v1 = (method: string, path: string, body?: unknown) => send(stack, method, path, { token: tenant.apiKey, body });
  const langfuse = (path: string, body: unknown) =>
    send(stack, 'POST', path, { body, headers: { authorization: `Basic ${Buffer.from(`pk-lf-x:${tenant.apiKey}`).toString('base64')}` } });

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, 'dataset-writes@spanlog.test', 'Dataset writes', 'evals', 'growth');
    await bootstrap(stack, 'elsewhere@spanlog.test', 'Elsewhere', 'other');
    token = (await login(stack, 'dataset-writes@spanlog.test')).access_token;
    outsider = (await login(stack, 'elsewhere@spanlog.test')).access_token;
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('creates a dataset for a member, audited with the member as actor; a non-member is refused, a bad field named', async () => {
    const created = data(await rpc('dataset.create', { name: 'qa', description: 'by hand', metadata: { team: 'evals' } }));
    expect(created).toMatchObject({ name: 'qa', description: 'by hand', metadata: { team: 'evals' } });
    expect((await v1('GET', '/api/v1/datasets/qa')).body).toMatchObject({ id: created.id, description: 'by hand' });

    const audit = await auditUntil((events) => events.some((e) => e.action === 'dataset.saved'));
    expect(audit.find((e) => e.action === 'dataset.saved')).toMatchObject({
      actorUserId: tenant.userId,
      target: 'qa',
      details: { projectId: tenant.projectId, datasetId: created.id },
    });

    const bad = await rpc('dataset.create', { description: 'no name' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^name: /);
    expect((await rpc('dataset.create', { name: 'qa', metadata: [1] })).body.error.message).toMatch(/^metadata: /);
    expect((await rpc('dataset.create', { name: 'theirs' }, outsider)).status).toBe(403);
  });

  it('upserts items idempotently by id, names the field at fault, 404s an unknown dataset, 413s too many or too large', async () => {
    const items = [
      { id: 'q1', input: { q: '2+2' }, expectedOutput: '4' },
      { id: 'q2', input: 'hello', metadata: { lang: 'en' }, sourceTraceId: 'trace-1', sourceSpanId: 'span-1' },
    ];
    expect(data(await rpc('dataset.upsertItems', { datasetName: 'qa', items }))).toEqual({ accepted: 2, ids: ['q1', 'q2'] });
    // The same items again store nothing new: still one version each.
    expect(data(await rpc('dataset.upsertItems', { datasetName: 'qa', items }))).toEqual({ accepted: 2, ids: ['q1', 'q2'] });
    const listed = (await v1('GET', '/api/v1/datasets/qa/items')).body;
    expect(listed.meta.totalItems).toBe(2);
    expect(listed.data[1]).toMatchObject({ id: 'q2', input: 'hello', sourceTraceId: 'trace-1', sourceSpanId: 'span-1', status: 'ACTIVE' });

    const badStatus = await rpc('dataset.upsertItems', { datasetName: 'qa', items: [{ input: 1 }, { input: 2, status: 'DONE' }] });
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.error.message).toMatch(/^items\[1\]\.status: must be one of ACTIVE, ARCHIVED/);
    expect((await rpc('dataset.upsertItems', { datasetName: 'qa', items: 'q1' })).body.error.message).toBe('items: must be an array');

    const unknown = await rpc('dataset.upsertItems', { datasetName: 'nowhere', items: [{ input: 1 }] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('dataset "nowhere" not found in this project');

    const tooMany = await rpc('dataset.upsertItems', { datasetName: 'qa', items: Array.from({ length: 1001 }, (_, i) => ({ input: i })) });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.error.message).toBe('items has 1001 items; at most 1000 are allowed');
    // Over 1 MB, so the call has REST's body limit (5 MB) rather than the RPC's default: the item, not the body, is refused.
    const tooLarge = await rpc('dataset.upsertItems', { datasetName: 'qa', items: [{ input: 'x'.repeat(MB + 10) }] });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.message).toMatch(/^items\[0\]: is \d+ bytes of input, expectedOutput and metadata; at most 1048576/);
    // Bodies over a limit are refused on their declared length, before they are read; sent, the server's early answer races the upload.
    expect((await declaredBody('dataset.upsertItems', 5 * MB + 1)).status).toBe(413);
    // Any other call keeps the RPC's 1 MB.
    expect((await declaredBody('dataset.create', MB + 1)).status).toBe(413);
    expect((await v1('GET', '/api/v1/datasets/qa/items')).body.meta.totalItems).toBe(2);
  });

  it('checks items without storing any, listing every fault by index', async () => {
    const checked = data(
      await rpc('dataset.checkItems', { datasetName: 'qa', items: [{ input: 1 }, { status: 'DONE' }, { input: 'x'.repeat(MB + 1) }] }),
    );
    expect(checked.problems).toEqual([
      { index: 1, message: expect.stringMatching(/^status: must be one of/) },
      { index: 2, message: expect.stringMatching(/^item: is \d+ bytes/) },
    ]);
    expect((await rpc('dataset.checkItems', { datasetName: 'nowhere', items: [] })).status).toBe(404);
    expect((await v1('GET', '/api/v1/datasets/qa/items')).body.meta.totalItems).toBe(2);
  });

  it('archives and restores an item as a new version, keeping its content; an item of another dataset is a 404', async () => {
    const before = new Date().toISOString();
    const archived = data(await rpc('dataset.archiveItem', { datasetName: 'qa', itemId: 'q1', archived: true }));
    expect(archived).toMatchObject({ id: 'q1', status: 'ARCHIVED', input: { q: '2+2' }, expectedOutput: '4' });
    // Read as of before, it was active.
    const then = (await v1('GET', `/api/v1/datasets/qa/items?version=${encodeURIComponent(before)}`)).body;
    expect(then.data.find((i: { id: string }) => i.id === 'q1').status).toBe('ACTIVE');
    expect(data(await rpc('dataset.archiveItem', { datasetName: 'qa', itemId: 'q1', archived: false })).status).toBe('ACTIVE');

    expect(data(await rpc('dataset.create', { name: 'other' })).name).toBe('other');
    const elsewhere = await rpc('dataset.archiveItem', { datasetName: 'other', itemId: 'q1', archived: true });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.message).toBe('itemId: dataset "other" has no item "q1"');
    expect((await rpc('dataset.archiveItem', { datasetName: 'qa', itemId: 'q1' })).body.error.message).toMatch(/^archived: /);

    const wanted = ['dataset.items_pushed', 'dataset.item_archived', 'dataset.item_restored'];
    const audit = await auditUntil((events) => wanted.every((a) => events.some((e) => e.action === a)));
    expect(audit.find((e) => e.action === 'dataset.item_archived')).toMatchObject({ target: 'qa', details: { itemId: 'q1' } });
  });

  it('keeps scores of a run as a whole with the run, replaced by id, and shows them in its results and comparisons', async () => {
    for (const runName of ['r1', 'r2']) {
      const link = await langfuse('/api/public/dataset-run-items', { runName, datasetItemId: 'q1', traceId: `trace-${runName}` });
      expect(link.status).toBe(200);
    }
    const r1 = (await v1('GET', '/api/v1/datasets/qa/runs/r1')).body as RunResults;
    expect(r1.scores).toEqual([]);
    const r2 = (await v1('GET', '/api/v1/datasets/qa/runs/r2')).body as RunResults;

    const answer = await langfuse('/api/public/ingestion', {
      batch: [
        {
          id: 'e1',
          type: 'score-create',
          timestamp: new Date().toISOString(),
          body: { id: 's1', datasetRunId: r1.id, name: 'accuracy', value: 0.5 },
        },
        {
          id: 'e2',
          type: 'score-create',
          timestamp: new Date().toISOString(),
          body: { datasetRunId: r1.id, name: 'verdict', value: 'ship' },
        },
        {
          id: 'e3',
          type: 'score-create',
          timestamp: new Date().toISOString(),
          body: { id: 's3', datasetRunId: r2.id, name: 'accuracy', value: 0.9 },
        },
        { id: 'e4', type: 'score-create', timestamp: new Date().toISOString(), body: { datasetRunId: r1.id, name: 'accuracy' } },
        {
          id: 'e5',
          type: 'score-create',
          timestamp: new Date().toISOString(),
          body: { datasetRunId: 'not-a-run', name: 'accuracy', value: 1 },
        },
      ],
    });
    expect(answer.status).toBe(207);
    expect(answer.body.successes).toEqual([
      { id: 'e1', status: 201 },
      { id: 'e2', status: 201 },
      { id: 'e3', status: 201 },
    ]);
    expect(answer.body.errors).toEqual([
      { id: 'e4', status: 400, error: 'VALIDATION_ERROR', message: 'body.value: must be a number, a string or a boolean' },
      { id: 'e5', status: 404, error: 'NOT_FOUND', message: 'body.datasetRunId: dataset run "not-a-run" not found in this project' },
    ]);
    // Sent again with its id and another value, the score is replaced.
    const again = await langfuse('/api/public/ingestion', {
      batch: [
        {
          id: 'e6',
          type: 'score-create',
          timestamp: new Date().toISOString(),
          body: { id: 's1', datasetRunId: r1.id, name: 'accuracy', value: 0.75 },
        },
      ],
    });
    expect(again.body).toEqual({ successes: [{ id: 'e6', status: 201 }], errors: [] });

    const results = (await v1('GET', '/api/v1/datasets/qa/runs/r1')).body as RunResults;
    expect(results.scores.map(({ name, value }) => ({ name, value }))).toEqual([
      { name: 'accuracy', value: 0.75 },
      { name: 'verdict', value: 'ship' },
    ]);
    const viaRpc = data<RunResults>(await query(stack, token, 'dataset.run', { projectId: tenant.projectId, name: 'qa', runName: 'r2' }));
    expect(viaRpc.scores).toMatchObject([{ name: 'accuracy', value: 0.9 }]);
    const compared = data(
      await query(stack, token, 'dataset.compare', { projectId: tenant.projectId, name: 'qa', runNames: ['r1', 'r2'] }),
    );
    expect(compared.runs.map((r: RunResults) => r.scores.map((s) => `${s.name}=${String(s.value)}`))).toEqual([
      ['accuracy=0.75', 'verdict=ship'],
      ['accuracy=0.9'],
    ]);

    // Another project's key cannot score this project's run, and learns nothing of it.
    const stranger = await bootstrap(stack, 'stranger@spanlog.test', 'Strangers', 'theirs');
    const foreign = await send(stack, 'POST', '/api/public/ingestion', {
      headers: { authorization: `Basic ${Buffer.from(`pk-lf-x:${stranger.apiKey}`).toString('base64')}` },
      body: {
        batch: [
          { id: 'f1', type: 'score-create', timestamp: new Date().toISOString(), body: { datasetRunId: r1.id, name: 'x', value: 1 } },
        ],
      },
    });
    expect(foreign.body.errors).toEqual([
      { id: 'f1', status: 404, error: 'NOT_FOUND', message: `body.datasetRunId: dataset run "${r1.id}" not found in this project` },
    ]);
  });
});
