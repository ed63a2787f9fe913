import { randomUUID } from 'node:crypto';
import type { RetentionRun } from '@app/projections';
import { type Tenant, bootstrap, eventually } from './support/api';
import { NATIVE_TRACES, ingest, traceStatus } from './support/ingest';
import { type Stack, runCli, startStack } from './support/stack';

const DAY_MS = 86_400_000;

describe('retention (SPEC 8.5)', () => {
  let stack: Stack;
  const tenants: Record<'free' | 'pro' | 'enterprise', Tenant> = {} as never;
  const traceOf: Record<string, string> = {};

  beforeAll(async () => {
    stack = await startStack();
    for (const plan of ['free', 'pro', 'enterprise'] as const)
      tenants[plan] = await bootstrap(stack, `${plan}-retention@spanlog.test`, `Retention ${plan}`, 'p', plan);
  }, 120_000);

  afterAll(() => stack?.stop());

  const runRetention = async (nowMs: number): Promise<Extract<RetentionRun, { ran: true }>> => {
    const res = await runCli(['admin', 'retention', 'run', '--now', new Date(nowMs).toISOString(), '--json'], stack.env);
    expect(res).toMatchObject({ code: 0 });
    return JSON.parse(res.stdout) as Extract<RetentionRun, { ran: true }>;
  };
  const counts = async (projectId: string) =>
    (
      await stack.db.query(
        `SELECT (SELECT count(*) FROM traces WHERE project_id = $1)::int AS traces, (SELECT count(*) FROM spans WHERE project_id = $1)::int AS spans,
                (SELECT count(*) FROM scores WHERE project_id = $1)::int AS scores`,
        [projectId],
      )
    ).rows[0];
  const traceEvents = (traceId: string) => {
    const at = new Date().toISOString();
    return [
      { id: `${traceId}-t`, type: 'trace-create', timestamp: at, body: { id: traceId, name: 'kept a while' } },
      { id: `${traceId}-s`, type: 'span-create', timestamp: at, body: { id: `${traceId}-span`, traceId, name: 'step', startTime: at } },
      { id: `${traceId}-sc`, type: 'score-create', timestamp: at, body: { traceId, name: 'quality', value: 0.9 } },
    ];
  };

  it('deletes exactly the expired traces, spans and scores of each plan, leaves Enterprise alone, and keeps them deleted', async () => {
    let seq = '';
    for (const [plan, tenant] of Object.entries(tenants)) {
      traceOf[plan] = `retention-${plan}-${randomUUID()}`;
      seq = await ingest(stack, tenant.apiKey, NATIVE_TRACES, { batch: traceEvents(traceOf[plan]) });
    }
    for (const [plan, tenant] of Object.entries(tenants)) expect(await traceStatus(stack, tenant.apiKey, traceOf[plan], seq)).toBe(200);

    // Eight days on, Free's 7 days are over; Pro (30) and Enterprise (never) keep theirs.
    const week = await runRetention(Date.now() + 8 * DAY_MS);
    const free = week.organizations.find((o) => o.orgId === tenants.free.orgId);
    expect(free).toMatchObject({ plan: 'free', traces: 1, spans: 1, scores: 1 });
    expect(free?.removedMessages).toBeGreaterThanOrEqual(1);
    expect(week.organizations.find((o) => o.orgId === tenants.pro.orgId)).toMatchObject({ traces: 0, spans: 0, scores: 0 });
    expect(week.organizations.find((o) => o.orgId === tenants.enterprise.orgId)).toBeUndefined();
    expect(await counts(tenants.free.projectId)).toEqual({ traces: 0, spans: 0, scores: 0 });
    expect(await counts(tenants.pro.projectId)).toEqual({ traces: 1, spans: 1, scores: 1 });

    // A late span of the deleted trace, projected after the deletion, does not bring it back.
    const at = new Date().toISOString();
    const late = await ingest(stack, tenants.free.apiKey, NATIVE_TRACES, {
      batch: [
        {
          id: `${traceOf.free}-late`,
          type: 'span-create',
          timestamp: at,
          body: { id: `${traceOf.free}-late-span`, traceId: traceOf.free, name: 'late', startTime: at },
        },
      ],
    });
    expect(await traceStatus(stack, tenants.free.apiKey, traceOf.free, late)).toBe(404);
    expect(await counts(tenants.free.projectId)).toEqual({ traces: 0, spans: 0, scores: 0 });

    // Thirty-one days on, Pro's go too; Enterprise is never cleaned.
    const month = await runRetention(Date.now() + 31 * DAY_MS);
    expect(month.organizations.find((o) => o.orgId === tenants.pro.orgId)).toMatchObject({ traces: 1, spans: 1, scores: 1 });
    expect(await traceStatus(stack, tenants.pro.apiKey, traceOf.pro, late)).toBe(404);
    expect(await traceStatus(stack, tenants.enterprise.apiKey, traceOf.enterprise, late)).toBe(200);
    expect(await counts(tenants.enterprise.projectId)).toEqual({ traces: 1, spans: 1, scores: 1 });

    // Running again finds nothing left to delete.
    const again = await runRetention(Date.now() + 31 * DAY_MS);
    expect(again.organizations.every((o) => o.traces === 0)).toBe(true);
  });

  it('removes the cleaned requests from the stream, projects its deletion events without dead letters, and audits each run', async () => {
    const nc = await stack.connectNats();
    try {
      const jsm = await nc.jetstreamManager();
      const subjects = (await jsm.streams.info(`${stack.streamPrefix}INGEST`, { subjects_filter: '>' })).state.subjects ?? {};
      const ofOrg = (orgId: string, kind: string) =>
        Object.entries(subjects)
          .filter(([subject]) => subject.includes(`.${orgId}.`) && subject.endsWith(`.${kind}`))
          .reduce((n, [, c]) => n + c, 0);
      // Every cleaned organization's requests are gone (the late one went with the second run); deletions are kept.
      expect(ofOrg(tenants.free.orgId, 'batch')).toBe(0);
      expect(ofOrg(tenants.pro.orgId, 'batch')).toBe(0);
      expect(ofOrg(tenants.free.orgId, 'deleted')).toBeGreaterThanOrEqual(1);
      expect(ofOrg(tenants.enterprise.orgId, 'batch')).toBe(1);
      expect((await jsm.streams.info(`${stack.streamPrefix}DLQ`)).state.messages).toBe(0);
    } finally {
      await nc.close();
    }
    const audited = await eventually(
      async () => (await stack.db.query(`SELECT org_id, details FROM audit_log WHERE action = 'retention.run'`)).rows,
      (rows) => rows.length >= 3,
    );
    expect(audited.filter((r: { org_id: string }) => r.org_id === tenants.enterprise.orgId)).toEqual([]);
    expect(audited).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          org_id: tenants.free.orgId,
          details: expect.objectContaining({ plan: 'free', traces: 1, spans: 1, scores: 1 }),
        }),
        expect.objectContaining({ org_id: tenants.pro.orgId, details: expect.objectContaining({ plan: 'pro', traces: 1 }) }),
      ]),
    );
  });
});
