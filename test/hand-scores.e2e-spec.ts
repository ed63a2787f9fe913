import { randomUUID } from 'node:crypto';
import { LangfuseClient } from '@langfuse/client';
import { type HttpAnswer, type Tenant, bootstrap, createUser, data, eventually, login, mutate, query, send } from './support/api';
import { NATIVE_TRACES, SCORES, ingest, write } from './support/ingest';
import { telemetryRows } from './support/rows';
import { type Stack, runCli, startStack } from './support/stack';

const emails = { owner: 'hand-owner@spanlog.test', admin: 'hand-admin@spanlog.test', member: 'hand-member@spanlog.test' };

/**
 * Score configs and scores given by hand (issue 30): a score that does not fit the config of
 * its name is refused whatever its source; a hand score travels through INGEST, so a rebuild
 * gives it back identical; its author, an admin or an owner may change it; Langfuse's client
 * reads and writes the configs.
 */
describe('score configs and hand scores', () => {
  let stack: Stack;
  let tenant: Tenant;
  const tokens = { owner: '', admin: '', member: '' };
  let traceId: string;
  let spanId: string;
  let externalTrace: string;
  const configs: Record<string, { id: string; name: string }> = {};

  const expectRefused = (res: HttpAnswer, status: number, message: string | RegExp) => {
    expect(res.status).toBe(status);
    expect(res.body.error.message).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
  };
  const scoresOfTrace = async () =>
    data(await query(stack, tokens.owner, 'trace.get', { projectId: tenant.projectId, id: traceId })).scores;

  beforeAll(async () => {
    stack = await startStack();
    // Team: seats for three, and the audit log.
    tenant = await bootstrap(stack, emails.owner, 'Hand scores', 'p', 'team');
    tokens.owner = (await login(stack, emails.owner)).access_token;
    for (const email of [emails.admin, emails.member]) await createUser(stack, email);
    data(await mutate(stack, tokens.owner, 'member.add', { orgId: tenant.orgId, email: emails.admin, role: 'admin' }));
    data(await mutate(stack, tokens.owner, 'member.add', { orgId: tenant.orgId, email: emails.member, role: 'member' }));
    tokens.admin = (await login(stack, emails.admin)).access_token;
    tokens.member = (await login(stack, emails.member)).access_token;

    externalTrace = `hand-${randomUUID()}`;
    const at = new Date().toISOString();
    const seq = await ingest(stack, tenant.apiKey, NATIVE_TRACES, {
      batch: [
        { id: 'e1', type: 'trace-create', timestamp: at, body: { id: externalTrace, name: 'reviewed' } },
        {
          id: 'e2',
          type: 'span-create',
          timestamp: at,
          body: { id: `${externalTrace}-s`, traceId: externalTrace, name: 'answer', type: 'LLM', startTime: at },
        },
      ],
    });
    const trace = await send(stack, 'GET', `/api/v1/traces/${externalTrace}?minSeq=${encodeURIComponent(seq)}`, { token: tenant.apiKey });
    traceId = trace.body.id;
    spanId = trace.body.spans[0].id;

    for (const config of [
      { name: 'accuracy', dataType: 'NUMERIC', minValue: 0, maxValue: 1, description: 'how right the answer is' },
      {
        name: 'tone',
        dataType: 'CATEGORICAL',
        categories: [
          { label: 'polite', value: 1 },
          { label: 'rude', value: 0 },
        ],
      },
      { name: 'correct', dataType: 'BOOLEAN' },
    ]) {
      const created = data(await mutate(stack, tokens.admin, 'scoreConfig.create', { projectId: tenant.projectId, ...config }));
      configs[created.name] = created;
    }
  }, 120_000);

  afterAll(() => stack?.stop());

  it('creates, lists, updates and archives configs; a member reads them and cannot change them; fields are named when wrong', async () => {
    const listed = data(await query(stack, tokens.member, 'scoreConfig.list', { projectId: tenant.projectId }));
    expect(listed.map((c: any) => [c.name, c.dataType, c.archived])).toEqual([
      ['accuracy', 'NUMERIC', false],
      ['correct', 'BOOLEAN', false],
      ['tone', 'CATEGORICAL', false],
    ]);
    expectRefused(
      await mutate(stack, tokens.member, 'scoreConfig.create', { projectId: tenant.projectId, name: 'x', dataType: 'BOOLEAN' }),
      403,
      /needs the role owner or admin; you are member/,
    );
    expectRefused(
      await mutate(stack, tokens.admin, 'scoreConfig.create', { projectId: tenant.projectId, name: 'accuracy', dataType: 'BOOLEAN' }),
      400,
      'name: a score config named "accuracy" already exists in this project',
    );
    expectRefused(
      await mutate(stack, tokens.admin, 'scoreConfig.create', {
        projectId: tenant.projectId,
        name: 'x',
        dataType: 'CATEGORICAL',
        categories: [{ label: 'a' }],
      }),
      400,
      'categories[0].value: must be a number',
    );
    const updated = data(
      await mutate(stack, tokens.admin, 'scoreConfig.update', {
        projectId: tenant.projectId,
        id: configs.accuracy.id,
        description: 'from 0 to 1',
      }),
    );
    expect(updated).toMatchObject({ name: 'accuracy', minValue: 0, maxValue: 1, description: 'from 0 to 1' });
    expectRefused(
      await mutate(stack, tokens.admin, 'scoreConfig.update', { projectId: tenant.projectId, id: configs.accuracy.id, minValue: 2 }),
      400,
      'minValue: must not be above maxValue (1)',
    );
  });

  it('refuses a score that does not fit its config from every source, naming the field', async () => {
    // REST, one score and a list.
    expectRefused(
      await send(stack, 'POST', SCORES, { token: tenant.apiKey, body: { traceId: externalTrace, name: 'accuracy', value: 3 } }),
      400,
      'value: must be at most 1 for the score config "accuracy"; got 3',
    );
    // A NUL in the name (stored without it, BAD_INPUTS 5) is checked as stored, never a 500.
    expectRefused(
      await send(stack, 'POST', SCORES, { token: tenant.apiKey, body: { traceId: externalTrace, name: 'accu\u0000racy', value: 3 } }),
      400,
      'value: must be at most 1 for the score config "accuracy"; got 3',
    );
    expect(
      (await send(stack, 'POST', SCORES, { token: tenant.apiKey, body: { traceId: externalTrace, name: '\u0000', value: 0 } })).status,
    ).toBe(201);
    const list = await send(stack, 'POST', SCORES, {
      token: tenant.apiKey,
      body: {
        scores: [
          { traceId: externalTrace, name: 'accuracy', value: 0.5 },
          { traceId: externalTrace, name: 'tone', value: 'sarcastic' },
        ],
      },
    });
    expectRefused(
      list,
      400,
      'scores[1].value: must be one of the categories of the score config "tone" ("polite", "rude"); got "sarcastic"',
    );
    expectRefused(
      await send(stack, 'POST', SCORES, { token: tenant.apiKey, body: { traceId: externalTrace, name: 'correct', value: 'yes' } }),
      400,
      /^dataType: must be BOOLEAN/,
    );

    // Native batch: the score is refused as an invalid event is, the rest stored.
    const at = new Date().toISOString();
    const native = await write(stack, tenant.apiKey, NATIVE_TRACES, {
      batch: [
        { id: 'n1', type: 'score-create', timestamp: at, body: { id: 'native-misfit', traceId: externalTrace, name: 'correct', value: 2 } },
        { id: 'n2', type: 'score-create', timestamp: at, body: { id: 'native-fit', traceId: externalTrace, name: 'correct', value: true } },
      ],
    });
    expect(native.status).toBe(201);
    expect(native.body).toEqual({
      accepted: 1,
      errors: [
        {
          index: 0,
          id: 'n1',
          code: 'VALIDATION_ERROR',
          message: 'batch[0].body.value: must be true or false (or 1 or 0) for the score config "correct"; got 2',
        },
      ],
    });

    // Langfuse batch ingestion: 207, the event refused with 400 and the field.
    const langfuse = await send(stack, 'POST', '/api/public/ingestion', {
      headers: { authorization: `Basic ${Buffer.from(`pk-lf-x:${tenant.apiKey}`).toString('base64')}` },
      body: {
        batch: [
          { id: 'l1', type: 'score-create', timestamp: at, body: { id: 'lf-misfit', traceId: externalTrace, name: 'accuracy', value: -1 } },
        ],
      },
    });
    expect(langfuse.status).toBe(207);
    expect(langfuse.body).toEqual({
      successes: [],
      errors: [
        {
          id: 'l1',
          status: 400,
          error: 'VALIDATION_ERROR',
          message: 'batch[0].body.value: must be at least 0 for the score config "accuracy"; got -1',
        },
      ],
    });

    // By hand.
    expectRefused(
      await mutate(stack, tokens.member, 'handScore.create', {
        projectId: tenant.projectId,
        traceId,
        spanId,
        configId: configs.accuracy.id,
        value: 1.5,
      }),
      400,
      'value: must be at most 1 for the score config "accuracy"; got 1.5',
    );
    expectRefused(
      await mutate(stack, tokens.member, 'handScore.create', {
        projectId: tenant.projectId,
        traceId,
        configId: configs.accuracy.id,
        value: 1,
        comment: 'a\u0000b',
      }),
      400,
      'comment: must not contain NUL characters or unpaired UTF-16 surrogates',
    );

    // Ingestion is asynchronous: the fitting score sent after the misfit shows once both were processed.
    const stored = (await eventually(scoresOfTrace, (scores) => scores.some((s: any) => s.externalId === 'native-fit'))).map(
      (s: any) => s.externalId,
    );
    expect(stored).not.toContain('native-misfit');
    expect(stored).not.toContain('lf-misfit');

    // An archived config checks nothing; restored, it checks again.
    data(await mutate(stack, tokens.admin, 'scoreConfig.archive', { projectId: tenant.projectId, id: configs.accuracy.id }));
    expect(
      (await send(stack, 'POST', SCORES, { token: tenant.apiKey, body: { traceId: externalTrace, name: 'accuracy', value: 3 } })).status,
    ).toBe(201);
    data(
      await mutate(stack, tokens.admin, 'scoreConfig.archive', { projectId: tenant.projectId, id: configs.accuracy.id, archived: false }),
    );
    expect(
      (await send(stack, 'POST', SCORES, { token: tenant.apiKey, body: { traceId: externalTrace, name: 'accuracy', value: 3 } })).status,
    ).toBe(400);
  });

  it('gives a score by hand on a span with its author; its author or an admin changes it, another member may not; all audited', async () => {
    const given = data(
      await mutate(stack, tokens.admin, 'handScore.create', {
        projectId: tenant.projectId,
        traceId,
        spanId,
        configId: configs.tone.id,
        value: 'polite',
        comment: 'kind',
      }),
    );
    expect(given).toEqual({ id: expect.any(String), seq: expect.stringMatching(/^v1\./), visible: true });
    const byMember = data(
      await mutate(stack, tokens.member, 'handScore.create', {
        projectId: tenant.projectId,
        traceId,
        configId: configs.correct.id,
        value: 1,
      }),
    );
    const scores = await scoresOfTrace();
    expect(scores.find((s: any) => s.id === given.id)).toMatchObject({
      spanId,
      name: 'tone',
      value: 'polite',
      dataType: 'CATEGORICAL',
      comment: 'kind',
      source: 'ANNOTATION',
      author: { userId: expect.any(String), email: emails.admin },
    });
    expect(scores.find((s: any) => s.id === byMember.id)).toMatchObject({
      spanId: null,
      value: true,
      dataType: 'BOOLEAN',
      author: { email: emails.member },
    });

    expectRefused(
      await mutate(stack, tokens.member, 'handScore.update', { projectId: tenant.projectId, id: given.id, value: 'rude' }),
      403,
      `score ${given.id} was given by ${emails.admin}; only its author, an admin or an owner may change it, and you are member`,
    );
    expectRefused(
      await mutate(stack, tokens.member, 'handScore.delete', { projectId: tenant.projectId, id: given.id }),
      403,
      /only its author, an admin or an owner may delete it/,
    );
    expectRefused(
      await mutate(stack, tokens.admin, 'handScore.update', { projectId: tenant.projectId, id: given.id, value: 'snarky' }),
      400,
      /^value: must be one of the categories/,
    );
    data(
      await mutate(stack, tokens.member, 'handScore.update', {
        projectId: tenant.projectId,
        id: byMember.id,
        value: false,
        comment: 'on second look',
      }),
    );
    data(await mutate(stack, tokens.owner, 'handScore.update', { projectId: tenant.projectId, id: given.id, comment: 'kind enough' }));
    const apiScore = (await scoresOfTrace()).find((s: any) => s.source === 'API');
    expectRefused(
      await mutate(stack, tokens.owner, 'handScore.delete', { projectId: tenant.projectId, id: apiScore.id }),
      403,
      /came from the API; only scores given by hand can be changed here/,
    );

    const after = await scoresOfTrace();
    expect(after.find((s: any) => s.id === byMember.id)).toMatchObject({
      value: false,
      comment: 'on second look',
      author: { email: emails.member },
    });
    expect(after.find((s: any) => s.id === given.id)).toMatchObject({
      value: 'polite',
      comment: 'kind enough',
      author: { email: emails.admin },
    });

    data(await mutate(stack, tokens.admin, 'handScore.delete', { projectId: tenant.projectId, id: byMember.id }));
    expect((await scoresOfTrace()).map((s: any) => s.id)).not.toContain(byMember.id);
    expectRefused(
      await mutate(stack, tokens.admin, 'handScore.update', { projectId: tenant.projectId, id: byMember.id, comment: 'x' }),
      404,
      /not found/,
    );

    // A hand score counts where every score does: the overview's score table, once its buckets are recounted (the removed one gone).
    const annotations = await eventually(
      async () =>
        data(
          await query(stack, tokens.member, 'stats.overview', {
            projectId: tenant.projectId,
            from: new Date(Date.now() - 3_600_000).toISOString(),
            to: new Date(Date.now() + 60_000).toISOString(),
          }),
        ).scores.filter((s: any) => s.source === 'ANNOTATION'),
      (scores: any[]) => scores.length === 1,
      30_000,
    );
    expect(annotations).toEqual([expect.objectContaining({ name: 'tone', source: 'ANNOTATION', count: 1 })]);

    const audited = await eventually(
      async () =>
        data(await query(stack, tokens.owner, 'auditLog.list', { orgId: tenant.orgId })).data.filter((e: any) =>
          e.action.startsWith('score.'),
        ),
      (events: any[]) => events.length === 5,
      30_000,
    );
    expect(audited.map((e: any) => e.action).sort()).toEqual([
      'score.created',
      'score.created',
      'score.deleted',
      'score.updated',
      'score.updated',
    ]);
  });

  it('a hand score, and one removed, come back from a telemetry rebuild as they were', async () => {
    const kept = data(
      await mutate(stack, tokens.member, 'handScore.create', {
        projectId: tenant.projectId,
        traceId,
        spanId,
        configId: configs.accuracy.id,
        value: 0.75,
        comment: 'mostly',
      }),
    );
    const removed = data(
      await mutate(stack, tokens.member, 'handScore.create', {
        projectId: tenant.projectId,
        traceId,
        configId: configs.accuracy.id,
        value: 0.1,
      }),
    );
    data(await mutate(stack, tokens.member, 'handScore.update', { projectId: tenant.projectId, id: kept.id, value: 0.8 }));
    data(await mutate(stack, tokens.member, 'handScore.delete', { projectId: tenant.projectId, id: removed.id }));
    const before = await telemetryRows(stack, tenant.projectId);
    expect(before.scores.find((s) => s.id === kept.id)).toMatchObject({
      value: 0.8,
      comment: 'mostly',
      source: 'ANNOTATION',
      author_email: emails.member,
    });
    expect(before.scores.map((s) => s.id)).not.toContain(removed.id);

    await stack.db.query('DELETE FROM scores WHERE project_id = $1', [tenant.projectId]);
    const res = await runCli(['rebuild', 'telemetry', '--json'], stack.env);
    expect(res.code === 0 ? '' : res.stderr).toBe('');
    expect(await telemetryRows(stack, tenant.projectId)).toEqual(before);

    // The removal is a tombstone verify knows: no row is missing.
    const verify = await runCli(['verify', '--json'], stack.env);
    expect(verify.code === 0 ? JSON.parse(verify.stdout).clean : verify.stdout + verify.stderr).toBe(true);
  });

  it("answers Langfuse's own client: score configs listed, created and read by id in Langfuse's shapes", async () => {
    const langfuse = new LangfuseClient({ baseUrl: stack.baseUrl, publicKey: 'pk-lf-anything', secretKey: tenant.apiKey });
    const created = await langfuse.api.scoreConfigs.create({
      name: 'helpfulness',
      dataType: 'NUMERIC',
      minValue: 1,
      maxValue: 5,
      description: 'one to five',
    });
    expect(created).toEqual({
      id: expect.any(String),
      name: 'helpfulness',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      projectId: tenant.projectId,
      dataType: 'NUMERIC',
      isArchived: false,
      minValue: 1,
      maxValue: 5,
      description: 'one to five',
    });
    expect(await langfuse.api.scoreConfigs.getById(created.id)).toEqual(created);
    const page = await langfuse.api.scoreConfigs.get({ page: 1, limit: 2 });
    expect(page.meta).toEqual({ page: 1, limit: 2, totalItems: 4, totalPages: 2 });
    expect(page.data[0]).toEqual(created);
    const all = await langfuse.api.scoreConfigs.get();
    expect(all.data.find((c) => c.name === 'correct')).toMatchObject({
      dataType: 'BOOLEAN',
      categories: [
        { label: 'True', value: 1 },
        { label: 'False', value: 0 },
      ],
    });
    expect(all.data.find((c) => c.name === 'tone')).toMatchObject({
      categories: [
        { label: 'polite', value: 1 },
        { label: 'rude', value: 0 },
      ],
    });
    await expect(langfuse.api.scoreConfigs.getById(randomUUID())).rejects.toMatchObject({ statusCode: 404 });
    await expect(langfuse.api.scoreConfigs.create({ name: 'helpfulness', dataType: 'BOOLEAN' })).rejects.toMatchObject({ statusCode: 400 });

    // The config made through Langfuse checks scores like any other.
    expectRefused(
      await send(stack, 'POST', SCORES, { token: tenant.apiKey, body: { traceId: externalTrace, name: 'helpfulness', value: 7 } }),
      400,
      /^value: must be at most 5/,
    );
  });
});
