import { connect } from 'nats';
import { type Tenant, bootstrap, eventually, smallBatch } from './support/api';
import { metricValue, scrapeMetrics } from './support/metrics';
import { type CliResult, type Stack, runCli, startStack } from './support/stack';

interface ProjectReport {
  projectId: string;
  orgId: string;
  messages: number;
  applied: number;
  unapplied: { count: number; seqs: number[] };
  writingMissingRows: { count: number; seqs: number[] };
  traces: { expected: number; stored: number; missing: number; extra: number | null };
  spans: { expected: number; stored: number; missing: number; extra: number | null };
  clean: boolean;
}
interface Report {
  clean: boolean;
  watermark: number;
  projects: ProjectReport[];
  repaired: { messages: number; rejected: number } | null;
}

const DIFFERENCES = 2;

describe('spanlog verify', () => {
  let stack: Stack;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    stack = await startStack({ SPANLOG_VERIFY_INTERVAL_MS: '4000' });
    a = await bootstrap(stack, 'verify-a@spanlog.test', 'Verify A', 'p', 'team');
    b = await bootstrap(stack, 'verify-b@spanlog.test', 'Verify B', 'p', 'team');
  }, 120_000);

  afterAll(() => stack?.stop());

  const ingest = async (tenant: Tenant, traceId: string): Promise<string> => {
    const res = await fetch(`${stack.baseUrl}/api/v1/traces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(smallBatch(traceId)),
    });
    expect(res.status).toBe(201);
    return res.headers.get('spanlog-seq') as string;
  };
  const visible = async (tenant: Tenant, traceId: string, seq: string) =>
    (await fetch(`${stack.baseUrl}/api/v1/traces/${traceId}?minSeq=${seq}`, { headers: { authorization: `Bearer ${tenant.apiKey}` } })).status;
  const verify = async (...args: string[]): Promise<{ run: CliResult; report: Report }> => {
    const run = await runCli(['verify', '--json', ...args], stack.env);
    return { run, report: JSON.parse(run.stdout) as Report };
  };
  const projectIn = (report: Report, tenant: Tenant) => report.projects.find((p) => p.projectId === tenant.projectId) as ProjectReport;
  const usage = async (tenant: Tenant): Promise<{ traces: number; spans: number } | undefined> =>
    (await stack.db.query(`SELECT sum(traces)::int AS traces, sum(spans)::int AS spans FROM usage_counters WHERE org_id = $1`, [tenant.orgId])).rows[0];
  /** Usage once both metrics have counted `n`: traces and spans are usage messages of their own, so either may be counted first. */
  const settledUsage = (tenant: Tenant, n: number) => eventually(() => usage(tenant), (u) => !!u && u.spans >= n && u.traces >= n);

  it('is clean on a healthy system, names the project and the count of rows deleted behind its back, and --repair mends them without counting usage again', async () => {
    let seq = '';
    for (let i = 0; i < 5; i++) seq = await ingest(a, `a-${i}`);
    const seqB = await ingest(b, 'b-0');
    expect(await visible(a, 'a-4', seq)).toBe(200);
    expect(await visible(b, 'b-0', seqB)).toBe(200);

    const healthy = await verify();
    expect(healthy.run.code).toBe(0);
    expect(healthy.report.clean).toBe(true);
    expect(projectIn(healthy.report, a)).toMatchObject({ messages: 5, applied: 5, traces: { expected: 5, stored: 5, missing: 0, extra: 0 }, spans: { expected: 5, stored: 5, missing: 0, extra: 0 } });
    const usageBefore = await settledUsage(a, 5);

    await stack.db.query(`DELETE FROM spans WHERE project_id = $1 AND external_id IN ('a-1-s', 'a-3-s')`, [a.projectId]);
    const damaged = await verify();
    expect(damaged.run.code).toBe(DIFFERENCES);
    expect(damaged.report.clean).toBe(false);
    expect(projectIn(damaged.report, a)).toMatchObject({ clean: false, spans: { expected: 5, stored: 3, missing: 2 }, writingMissingRows: { count: 2 } });
    expect(projectIn(damaged.report, b).clean).toBe(true);
    const human = await runCli(['verify'], stack.env);
    expect(human.code).toBe(DIFFERENCES);
    expect(human.stdout).toContain(`project ${a.projectId} (organization ${a.orgId}): 2 of 5 spans missing`);

    const repaired = await verify('--repair');
    expect(repaired.run.code).toBe(0);
    expect(repaired.report).toMatchObject({ clean: true, repaired: { messages: 2, rejected: 0 } });
    expect((await verify('--project', a.projectId)).report.clean).toBe(true);
    // The re-created rows were counted when first applied. Usage is relayed in order, so once a
    // later span is counted anything the repair had queued would be counted too.
    expect(usageBefore).toEqual({ traces: 5, spans: 5 });
    const after = await ingest(a, 'a-after');
    expect(await visible(a, 'a-after', after)).toBe(200);
    expect(await settledUsage(a, 6)).toEqual({ traces: 6, spans: 6 });
  }, 120_000);

  it('finds requests the server skipped without applying them, and --repair applies them and counts them once', async () => {
    await stack.killProcessor('SIGTERM');
    let seq = '';
    for (let i = 0; i < 20; i++) seq = await ingest(b, `skipped-${i}`);
    const nc = await connect({ servers: stack.env.NATS_URL });
    let skippedByServer: boolean;
    try {
      const jsm = await nc.jetstreamManager();
      const stream = `${stack.streamPrefix}INGEST`;
      const last = (await jsm.streams.info(stream)).state.last_seq;
      // nats-server 2.9 moves every consumer on a filtered purge, even of subjects it holds nothing on (STACK_NOTES).
      await jsm.streams.purge(stream, { filter: `${stack.streamPrefix}ingest.nobody.>`, seq: last + 1 });
      skippedByServer = (await jsm.consumers.info(stream, `${stack.streamPrefix}ingest-projector`)).num_pending === 0;
    } finally {
      await nc.close();
    }
    await stack.startProcessor();
    if (!skippedByServer) {
      // A server that leaves consumers alone on a purge: the requests are simply applied.
      expect(await visible(b, 'skipped-19', seq)).toBe(200);
      expect((await verify()).report.clean).toBe(true);
      return;
    }
    // Reads never claim the skipped requests visible, and the processor says what happened.
    expect(await visible(b, 'skipped-19', seq)).toBe(503);
    await eventually(async () => stack.recentOutput('processor'), (out) => out.includes('acknowledged without being applied'));

    const found = await verify();
    expect(found.run.code).toBe(DIFFERENCES);
    expect(projectIn(found.report, b)).toMatchObject({ clean: false, unapplied: { count: 20 }, spans: { missing: 20 } });
    const repaired = await verify('--repair');
    expect(repaired.run.code).toBe(0);
    expect(repaired.report).toMatchObject({ clean: true, repaired: { messages: 20 } });
    expect(await visible(b, 'skipped-19', seq)).toBe(200);
    await settledUsage(b, 21);
  }, 120_000);

  it('runs in the processor on a schedule, logs applied requests whose rows are missing as an error, and counts them in its metrics', async () => {
    await stack.killProcessor('SIGTERM');
    await stack.startProcessor();
    const seq = await ingest(a, 'scheduled');
    expect(await visible(a, 'scheduled', seq)).toBe(200);
    await stack.db.query(`DELETE FROM spans WHERE project_id = $1 AND external_id = 'scheduled-s'`, [a.projectId]);
    const output = await eventually(async () => stack.recentOutput('processor'), (out) => out.includes('applied requests are missing from the projections'), 20_000);
    expect(output).toContain(a.projectId);
    // The restarted processor counts from 0; the round is counted once its range is marked checked.
    const { families } = await eventually(
      () => scrapeMetrics(stack.processorMetricsUrl),
      ({ families: f }) => (metricValue(f, 'spanlog_verify_rounds_total', { outcome: 'mismatch' }) ?? 0) > 0,
    );
    expect(metricValue(families, 'spanlog_verify_rounds_total', { outcome: 'mismatch' })).toBe(1);
    expect(metricValue(families, 'spanlog_verify_mismatches_total', { kind: 'spans' })).toBe(1);
    expect(metricValue(families, 'spanlog_verify_mismatches_total', { kind: 'traces' })).toBe(0);
  }, 60_000);
});
