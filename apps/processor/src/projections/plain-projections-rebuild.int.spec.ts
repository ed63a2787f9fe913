import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import type { UsageCounted, UsageMetric } from '@app/domain';
import { ChunkReader, type NatsResources, appendAuditEvent, appendUsage, toNatsHeaders, usageSubject } from '@app/eventlog';
import { closeTestStreams, openTestStreams, testStreamPrefix } from '@app/eventlog/testing/test-streams';
import { useTestDatabase } from '@app/persistence/testing/test-database';
import { type RebuildTick, RebuildBusyError, auditProjection, projectionNamed, usageProjection } from '@app/projections';
import { liveRunner } from './live-runner';

const METRICS: UsageMetric[] = ['traces', 'spans', 'eval_runs'];

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(50);
  }
}

/**
 * `spanlog rebuild usage audit` (DESIGN "Projections"), against the live path the processor
 * runs: the rebuilt tables equal what the live projections built from the same events, and the
 * live projections keep applying while the rebuild replays and after it swaps.
 */
describe('rebuild of the usage and audit projections', () => {
  // Declared before the database: jest runs afterAll hooks in declaration order, and these still use it.
  afterAll(async () => {
    await Promise.all(runners.map((r) => r.stop()));
    await closeTestStreams(nats);
  });
  const db = useTestDatabase();
  let nats: NatsResources;
  let runners: { stop(): Promise<void> }[] = [];
  const orgs = [randomUUID(), randomUUID(), randomUUID()];
  /** Every count published, once per id, and every audit event id. */
  const published = { usage: new Map<string, UsageCounted>(), audit: new Set<string>() };

  beforeAll(async () => {
    nats = await openTestStreams('plain-rebuild-test', testStreamPrefix('PR'));
    const deps = { ds: db.ds, nats, chunks: new ChunkReader(nats.js, nats.layout), logger: pino({ level: 'silent' }) };
    const started = [liveRunner(usageProjection, deps), liveRunner(auditProjection, deps)];
    for (const runner of started) await runner.start();
    runners = started;
  });

  /** Publishes `n` counts and `n` audit events the way the relays and the API do; resolves with their ids. */
  const publish = async (n: { usage: number; audit: number }) => {
    const counts = Array.from({ length: n.usage }, (_, i): UsageCounted => ({
      id: randomUUID(),
      orgId: orgs[i % orgs.length],
      month: i % 2 ? '2026-10' : '2026-11',
      metric: METRICS[i % METRICS.length],
      n: 1 + (i % 7),
      source: 'live',
    }));
    const [audits] = await Promise.all([
      Promise.all(
        Array.from({ length: n.audit }, (_, i) =>
          appendAuditEvent(nats.js, nats.layout, {
            orgId: i % 4 ? orgs[i % orgs.length] : null,
            actorUserId: randomUUID(),
            action: 'api_key.created',
            target: `key-${i}`,
            details: { n: i },
            ip: '127.0.0.1',
          }),
        ),
      ),
      appendUsage(nats.js, nats.layout, counts),
    ]);
    for (const c of counts) published.usage.set(c.id, c);
    for (const e of audits) published.audit.add(e.id);
    return { usage: counts.map((c) => c.id), audit: audits.map((e) => e.id) };
  };
  /** What the counters must hold: each published id once. */
  const expectedCounters = () => {
    const sums = new Map<string, { org_id: string; month: string; traces: number; spans: number; eval_runs: number }>();
    for (const c of published.usage.values()) {
      const key = `${c.orgId} ${c.month}`;
      const row = sums.get(key) ?? { org_id: c.orgId, month: c.month, traces: 0, spans: 0, eval_runs: 0 };
      row[c.metric] += c.n;
      sums.set(key, row);
    }
    const key = (r: { org_id: string; month: string }) => `${r.org_id} ${r.month}`;
    return [...sums.values()].sort((a, b) => (key(a) < key(b) ? -1 : 1));
  };
  // Every column but the times a row was last written, which a rebuild writes anew.
  const counters = async () =>
    db.ds.query(
      `SELECT org_id::text, month, traces::int, spans::int, eval_runs::int FROM usage_counters ORDER BY org_id, month COLLATE "C"`,
    ) as Promise<unknown[]>;
  const appliedIds = async () => ((await db.ds.query('SELECT id FROM usage_applied ORDER BY id')) as { id: string }[]).map((r) => r.id);
  const auditRows = async () =>
    ((await db.ds.query('SELECT to_jsonb(a) AS row FROM audit_log a ORDER BY id')) as { row: unknown }[]).map((r) => r.row);
  const allApplied = () =>
    until(async () => {
      const [{ usage, audit }] = await db.ds.query(
        'SELECT (SELECT count(*) FROM usage_applied)::int AS usage, (SELECT count(*) FROM audit_log)::int AS audit',
      );
      return usage === published.usage.size && audit === published.audit.size;
    });
  // Usage and audit decode in the rebuild's own thread whatever the setting.
  const inProcess = { workers: 0, warn: () => undefined };
  const rebuild = async (name: string, onTick: (t: RebuildTick) => void = () => undefined) =>
    (await projectionNamed(name)!.rebuild(db.ds, nats, onTick, inProcess)) as unknown as Record<string, unknown>;

  it('gives back every row after damage, counts a count published twice once, and skips what can never apply', async () => {
    await publish({ usage: 300, audit: 40 });
    // A relay's second publish of a count, after the duplicate window: stored twice, counted once.
    const again = [...published.usage.values()][0];
    await nats.js.publish(usageSubject(nats.layout, again.orgId), JSON.stringify(again), {
      headers: toNatsHeaders({ 'Spanlog-Schema': usageProjection.schemas[0] }),
    });
    // A count no version could add: live dead-letters it, the rebuild skips it.
    await nats.js.publish(usageSubject(nats.layout, orgs[0]), JSON.stringify({ ...again, id: randomUUID(), n: -5 }), {
      headers: toNatsHeaders({ 'Spanlog-Schema': usageProjection.schemas[0] }),
    });
    await allApplied();
    const before = { counters: await counters(), applied: await appliedIds(), audit: await auditRows() };
    expect(before.counters).toEqual(expectedCounters());
    expect(before.audit).toHaveLength(40);

    await db.ds.query('DELETE FROM usage_counters WHERE ctid = (SELECT ctid FROM usage_counters LIMIT 1)');
    await db.ds.query('UPDATE usage_counters SET spans = spans + 100 WHERE ctid = (SELECT ctid FROM usage_counters LIMIT 1)');
    await db.ds.query('DELETE FROM usage_applied WHERE ctid IN (SELECT ctid FROM usage_applied LIMIT 10)');
    await db.ds.query('DELETE FROM audit_log WHERE ctid = (SELECT ctid FROM audit_log LIMIT 1)');
    await db.ds.query(`UPDATE audit_log SET target = 'damaged' WHERE ctid = (SELECT ctid FROM audit_log LIMIT 1)`);

    const ticks: RebuildTick[] = [];
    const usage = await rebuild('usage', (t) => ticks.push(t));
    const audit = await rebuild('audit');
    expect(usage).toMatchObject({
      projection: 'usage',
      version: 1,
      lastSeq: 302,
      messages: 302,
      skipped: 1,
      rows: { usage_applied: 300, usage_counters: before.counters.length },
    });
    expect(audit).toMatchObject({ projection: 'audit', version: 1, lastSeq: 40, messages: 40, skipped: 0, rows: { audit_log: 40 } });
    expect(ticks.at(-1)).toEqual({ projection: 'usage', phase: 'swap', done: 302, total: 302, processed: 302 });

    expect({ counters: await counters(), applied: await appliedIds(), audit: await auditRows() }).toEqual(before);
    expect(
      await db.ds.query(`SELECT projection, version FROM projection_versions WHERE projection IN ('usage', 'audit') ORDER BY 1`),
    ).toEqual([
      { projection: 'audit', version: 1 },
      { projection: 'usage', version: 1 },
    ]);
    expect(await db.ds.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'spanlog_rebuild%'`)).toEqual([]);
  });

  it('keeps every event published while it replays, once, refuses a second rebuild meanwhile, and the live projections carry on in the new tables', async () => {
    // Backlogs, so the replays take a while.
    for (let i = 0; i < 6; i++) await publish({ usage: 500, audit: 300 });
    await allApplied();

    const swapping = new Set<string>();
    const duringReplay = { usage: 0, audit: 0 };
    let rebuilding = true;
    let started: { publishing: Promise<void>; second: Promise<unknown> } | undefined;
    const onTick = (t: RebuildTick) => {
      if (t.phase === 'swap') swapping.add(t.projection);
      started ??= {
        second: rebuild('usage').then(
          () => null,
          (err: unknown) => err,
        ),
        publishing: (async () => {
          while (rebuilding) {
            // About 250 counts a second: a steady ingest the replay outpaces, as it must to catch up.
            const [ids] = await Promise.all([publish({ usage: 5, audit: 2 }), sleep(20)]);
            if (!swapping.has('usage')) duringReplay.usage += ids.usage.length;
            if (!swapping.has('audit')) duringReplay.audit += ids.audit.length;
          }
        })(),
      };
    };
    // Both at once: each projection has a lock and a shadow schema of its own.
    const results = await Promise.all([rebuild('usage', onTick), rebuild('audit', onTick)]).finally(() => (rebuilding = false));
    expect(started).toBeDefined();
    await started?.publishing;
    expect(await started?.second).toBeInstanceOf(RebuildBusyError);
    expect(results).toMatchObject([{ projection: 'usage' }, { projection: 'audit' }]);
    expect(duringReplay.usage).toBeGreaterThan(0);
    expect(duringReplay.audit).toBeGreaterThan(0);

    await allApplied();
    expect(await counters()).toEqual(expectedCounters());
    expect(await appliedIds()).toEqual([...published.usage.keys()].sort());
    const auditIds = ((await db.ds.query('SELECT id FROM audit_log ORDER BY id')) as { id: string }[]).map((r) => r.id);
    expect(auditIds).toEqual([...published.audit].sort());
  });
});
