import { randomUUID } from 'node:crypto';
import { ANNOTATION_QUEUE_LIMITS } from '@app/domain';
import { type HttpAnswer, type Tenant, bootstrap, createUser, data, eventually, login, mutate, query } from './support/api';
import { NATIVE_TRACES, ingest } from './support/ingest';
import { type Stack, startStack } from './support/stack';

const emails = { owner: 'queue-owner@spanlog.test', member: 'queue-member@spanlog.test', other: 'queue-other@spanlog.test' };

/** Sends `count` traces named `name` and waits until the trace list has them; answers their ids, oldest first. */
async function tracesIn(stack: Stack, tenant: Tenant, token: string, name: string, count: number): Promise<string[]> {
  const at = Date.now();
  await ingest(stack, tenant.apiKey, NATIVE_TRACES, {
    batch: Array.from({ length: count }, (_, i) => ({
      id: `e${i}`,
      type: 'trace-create',
      timestamp: new Date(at + i).toISOString(),
      body: { id: `${name}-${randomUUID()}`, name, timestamp: new Date(at + i).toISOString() },
    })),
  });
  const listed = await eventually(
    async () => data(await query(stack, token, 'trace.list', { projectId: tenant.projectId, name, limit: 100 })).data,
    (rows: { id: string }[]) => rows.length === count,
  );
  return listed.map((t: { id: string }) => t.id).reverse();
}

/**
 * Annotation queues (issue 30): items are locked to one reviewer at a time, so two reviewers
 * asking together never get the same item; an item of another project is a 404 that says
 * nothing of it; wrong input is a 400 naming the field.
 */
describe('annotation queues', () => {
  let stack: Stack;
  let tenant: Tenant;
  let other: Tenant;
  const tokens = { owner: '', member: '', other: '' };
  let traceIds: string[];
  let configId: string;

  const expectRefused = (res: HttpAnswer, status: number, message: string | RegExp) => {
    expect(res.status).toBe(status);
    expect(res.body.error.message).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
  };
  const createQueue = async (name: string, ids: string[]) => {
    const queue = data(
      await mutate(stack, tokens.owner, 'annotationQueue.create', { projectId: tenant.projectId, name, scoreConfigIds: [configId] }),
    );
    const added = data(
      await mutate(stack, tokens.owner, 'annotationQueue.addItems', {
        projectId: tenant.projectId,
        queueId: queue.id,
        items: ids.map((traceId) => ({ traceId })),
      }),
    );
    expect(added).toEqual({ added: ids.length, requested: ids.length });
    return queue.id as string;
  };
  const next = async (token: string, queueId: string, extra: Record<string, unknown> = {}) =>
    data(await mutate(stack, token, 'annotationQueue.next', { projectId: tenant.projectId, queueId, ...extra })).item;

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, emails.owner, 'Queues', 'q', 'team');
    other = await bootstrap(stack, emails.other, 'Elsewhere', 'e', 'team');
    tokens.owner = (await login(stack, emails.owner)).access_token;
    tokens.other = (await login(stack, emails.other)).access_token;
    await createUser(stack, emails.member);
    data(await mutate(stack, tokens.owner, 'member.add', { orgId: tenant.orgId, email: emails.member, role: 'member' }));
    tokens.member = (await login(stack, emails.member)).access_token;
    configId = data(
      await mutate(stack, tokens.owner, 'scoreConfig.create', { projectId: tenant.projectId, name: 'helpful', dataType: 'BOOLEAN' }),
    ).id;
    traceIds = await tracesIn(stack, tenant, tokens.owner, 'queued', 5);
  }, 120_000);

  afterAll(() => stack?.stop());

  it('gives two reviewers asking at once two different items, each locked to its reviewer until completed', async () => {
    const queueId = await createQueue('locking', traceIds);
    for (let round = 0; round < 2; round++) {
      const [a, b] = await Promise.all([next(tokens.owner, queueId), next(tokens.member, queueId)]);
      expect(a.id).not.toBe(b.id);
      expect(a.lockedUntil).not.toBeNull();
      // Each reviewer asking again keeps the item it holds; the other's is never handed out.
      expect((await next(tokens.owner, queueId)).id).toBe(a.id);
      expect((await next(tokens.member, queueId)).id).toBe(b.id);
      expectRefused(
        await mutate(stack, tokens.member, 'annotationQueue.complete', { projectId: tenant.projectId, itemId: a.id }),
        403,
        /^itemId: another reviewer holds item/,
      );
      data(await mutate(stack, tokens.owner, 'annotationQueue.complete', { projectId: tenant.projectId, itemId: a.id }));
      data(await mutate(stack, tokens.member, 'annotationQueue.complete', { projectId: tenant.projectId, itemId: b.id }));
    }
    const last = await next(tokens.member, queueId);
    expect(await next(tokens.owner, queueId)).toBeNull();
    data(await mutate(stack, tokens.member, 'annotationQueue.skip', { projectId: tenant.projectId, itemId: last.id }));

    const progress = data(await query(stack, tokens.owner, 'annotationQueue.progress', { projectId: tenant.projectId, queueId }));
    expect(progress).toMatchObject({ total: 5, pending: 0, completed: 4, skipped: 1 });
    expect(progress.reviewers.map((r: { email: string; completed: number }) => [r.email, r.completed]).sort()).toEqual([
      [emails.member, 2],
      [emails.owner, 2],
    ]);
    const listed = data(await query(stack, tokens.member, 'annotationQueue.list', { projectId: tenant.projectId }));
    expect(listed.find((q: { id: string }) => q.id === queueId)).toMatchObject({
      total: 5,
      completed: 4,
      skipped: 1,
      pending: 0,
      reviewers: expect.arrayContaining([expect.objectContaining({ email: emails.member, completed: 2 })]),
    });
  });

  it('hands five reviewers asking at once five different items, and frees an item whose 5-minute lock ran out', async () => {
    const queueId = await createQueue('crowd', traceIds);
    const reviewers = [tokens.owner, tokens.member];
    for (const n of [1, 2, 3]) {
      const email = `queue-crowd-${n}@spanlog.test`;
      await createUser(stack, email);
      data(await mutate(stack, tokens.owner, 'member.add', { orgId: tenant.orgId, email, role: 'member' }));
      reviewers.push((await login(stack, email)).access_token);
    }
    const taken = await Promise.all(reviewers.map((token) => next(token, queueId)));
    expect(new Set(taken.map((i) => i.id)).size).toBe(5);
    const held = taken[0];
    const lockMs = Date.parse(held.lockedUntil) - Date.now();
    expect(lockMs).toBeGreaterThan(ANNOTATION_QUEUE_LIMITS.lockMs - 60_000);
    expect(lockMs).toBeLessThanOrEqual(ANNOTATION_QUEUE_LIMITS.lockMs);
    // Every item is held: a sixth request gets nothing, until one lock runs out.
    expect(await next(reviewers[1] as string, queueId, { afterItemId: taken[1].id })).toBeNull();
    await stack.db.query(`UPDATE annotation_queue_items SET locked_until = now() - interval '1 second' WHERE id = $1`, [held.id]);
    expect((await next(reviewers[1] as string, queueId, { afterItemId: taken[1].id })).id).toBe(held.id);
  });

  it('walks a queue forwards and back, and lets go of the item a reviewer leaves', async () => {
    const queueId = await createQueue('walking', traceIds.slice(0, 3));
    const first = await next(tokens.owner, queueId);
    expect(first.traceId).toBe(traceIds[0]);
    const second = await next(tokens.owner, queueId, { afterItemId: first.id });
    expect(second.traceId).toBe(traceIds[1]);
    // The owner left the first item: another reviewer may take it now.
    expect((await next(tokens.member, queueId)).id).toBe(first.id);
    const back = await next(tokens.owner, queueId, { afterItemId: second.id, previous: true });
    expect(back).toBeNull();
    data(await mutate(stack, tokens.member, 'annotationQueue.complete', { projectId: tenant.projectId, itemId: first.id }));
    expect((await next(tokens.owner, queueId, { afterItemId: second.id, previous: true })).id).toBe(first.id);
    const page = data(await query(stack, tokens.owner, 'annotationQueue.items', { projectId: tenant.projectId, queueId }));
    expect(page.data.map((i: { traceId: string; status: string }) => [i.traceId, i.status])).toEqual([
      [traceIds[0], 'completed'],
      [traceIds[1], 'pending'],
      [traceIds[2], 'pending'],
    ]);
  });

  it('adds the traces the trace list filters match, once each', async () => {
    const queueId = data(await mutate(stack, tokens.owner, 'annotationQueue.create', { projectId: tenant.projectId, name: 'filtered' })).id;
    const add = () =>
      mutate(stack, tokens.member, 'annotationQueue.addFromFilter', { projectId: tenant.projectId, queueId, filter: { name: 'queued' } });
    expect(data(await add())).toEqual({ added: 5, requested: 5 });
    expect(data(await add())).toEqual({ added: 0, requested: 5 });
    expectRefused(
      await mutate(stack, tokens.member, 'annotationQueue.addFromFilter', {
        projectId: tenant.projectId,
        queueId,
        filter: { fromTimestamp: 'yesterday' },
      }),
      400,
      /^filter\.fromTimestamp: must be/,
    );
  });

  it('queues a span of a trace, and refuses a span that is not in the trace it names', async () => {
    const external = `spanned-${randomUUID()}`;
    const at = new Date().toISOString();
    await ingest(stack, tenant.apiKey, NATIVE_TRACES, {
      batch: [
        { id: 's1', type: 'trace-create', timestamp: at, body: { id: external, name: 'spanned' } },
        { id: 's2', type: 'span-create', timestamp: at, body: { id: `${external}-llm`, traceId: external, name: 'answer', startTime: at } },
      ],
    });
    const trace = await eventually(
      async () => data(await query(stack, tokens.owner, 'trace.list', { projectId: tenant.projectId, name: 'spanned' })).data[0],
      (t: { id: string; spanCount: number } | undefined) => t?.spanCount === 1,
    );
    if (!trace) throw new Error('the trace did not arrive');
    const spanId = data(await query(stack, tokens.owner, 'trace.get', { projectId: tenant.projectId, id: trace.id })).spans[0].id;
    const queueId = data(await mutate(stack, tokens.owner, 'annotationQueue.create', { projectId: tenant.projectId, name: 'spans' })).id;
    const wrongSpan = randomUUID();
    expectRefused(
      await mutate(stack, tokens.member, 'annotationQueue.addItems', {
        projectId: tenant.projectId,
        queueId,
        items: [{ traceId: trace.id, spanId: wrongSpan }],
      }),
      404,
      `items[0].spanId: span ${wrongSpan} is not a span of trace ${trace.id}`,
    );
    const add = () =>
      mutate(stack, tokens.member, 'annotationQueue.addItems', {
        projectId: tenant.projectId,
        queueId,
        items: [{ traceId: trace.id, spanId }, { traceId: trace.id }],
      });
    expect(data(await add())).toEqual({ added: 2, requested: 2 });
    expect(data(await add())).toEqual({ added: 0, requested: 2 });
    expect(await next(tokens.member, queueId)).toMatchObject({ objectType: 'span', traceId: trace.id, spanId, status: 'pending' });
  });

  it("answers 404 for another project's item or queue, without telling it exists", async () => {
    const foreignQueue = data(await mutate(stack, tokens.other, 'annotationQueue.create', { projectId: other.projectId, name: 'theirs' }));
    const [foreignTrace] = await tracesIn(stack, other, tokens.other, 'foreign', 1);
    data(
      await mutate(stack, tokens.other, 'annotationQueue.addItems', {
        projectId: other.projectId,
        queueId: foreignQueue.id,
        items: [{ traceId: foreignTrace }],
      }),
    );
    const foreignItem = data(
      await mutate(stack, tokens.other, 'annotationQueue.next', { projectId: other.projectId, queueId: foreignQueue.id }),
    ).item;
    const unknownItem = randomUUID();
    for (const itemId of [foreignItem.id, unknownItem]) {
      expectRefused(
        await mutate(stack, tokens.owner, 'annotationQueue.complete', { projectId: tenant.projectId, itemId }),
        404,
        `itemId: item ${itemId} not found in this queue`,
      );
    }
    expectRefused(
      await query(stack, tokens.owner, 'annotationQueue.get', { projectId: tenant.projectId, queueId: foreignQueue.id }),
      404,
      `queueId: annotation queue ${foreignQueue.id} not found in project ${tenant.projectId}`,
    );
    const ownQueue = data(await mutate(stack, tokens.owner, 'annotationQueue.create', { projectId: tenant.projectId, name: 'own' })).id;
    expectRefused(
      await mutate(stack, tokens.owner, 'annotationQueue.addItems', {
        projectId: tenant.projectId,
        queueId: ownQueue,
        items: [{ traceId: traceIds[0] }, { traceId: foreignTrace }],
      }),
      404,
      `items[1].traceId: trace ${foreignTrace} not found in project ${tenant.projectId}`,
    );
    expectRefused(
      await mutate(stack, tokens.owner, 'annotationQueue.next', { projectId: other.projectId, queueId: foreignQueue.id }),
      403,
      /not in an organization you belong to/,
    );
  });

  it('refuses wrong input with a 400 naming the field', async () => {
    const projectId = tenant.projectId;
    const queueId = data(await mutate(stack, tokens.owner, 'annotationQueue.create', { projectId, name: 'input' })).id;
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['annotationQueue.create', { projectId, name: '  ' }, /^name: must be a non-blank string/],
      ['annotationQueue.create', { projectId, name: 'input' }, /^name: an annotation queue named "input" already exists/],
      ['annotationQueue.create', { projectId, name: 'x', scoreConfigIds: ['nope'] }, /^scoreConfigIds\[0\]: must be a UUID/],
      ['annotationQueue.create', { projectId, name: 'x', scoreConfigIds: [configId, configId] }, /^scoreConfigIds\[1\]: is given twice/],
      ['annotationQueue.addItems', { projectId, queueId, items: [] }, /^items: must be an array of 1 to 1000 items/],
      [
        'annotationQueue.addItems',
        {
          projectId,
          queueId,
          items: Array.from({ length: ANNOTATION_QUEUE_LIMITS.itemsPerRequest + 1 }, () => ({ traceId: traceIds[0] })),
        },
        /^items: must be an array of 1 to 1000 items/,
      ],
      [
        'annotationQueue.addItems',
        { projectId, queueId, items: [{ traceId: traceIds[0] }, { traceId: 'x' }] },
        /^items\[1\]\.traceId: must be a UUID/,
      ],
      [
        'annotationQueue.addItems',
        { projectId, queueId, items: [{ traceId: traceIds[0], span: 'x' }] },
        /^items\[0\]\.span: is not a field/,
      ],
      ['annotationQueue.items', { projectId, queueId, status: 'done' }, /^status: must be one of/],
      ['annotationQueue.items', { projectId, queueId, cursor: 'abc' }, /^cursor: not a cursor/],
      ['annotationQueue.next', { projectId, queueId, previous: 'yes' }, /^previous: must be true or false/],
      ['annotationQueue.complete', { projectId, itemId: 42 }, /^itemId: must be a UUID/],
    ];
    for (const [procedure, input, message] of cases) {
      const call = procedure.endsWith('.items') ? query : mutate;
      expectRefused(await call(stack, tokens.owner, procedure, input), 400, message);
    }
    expectRefused(
      await mutate(stack, tokens.member, 'annotationQueue.create', { projectId, name: 'by a member' }),
      403,
      /needs the role owner or admin; you are member/,
    );
  });
});
