import type { ProjectVerification, RepairResult, Verification } from '@app/projections';
import { type Tenant, bootstrap, eventually } from './support/api';
import { smallBatch } from './support/factories';
import { NATIVE_TRACES, ingest, traceStatus } from './support/ingest';
import { usageReaching } from './support/rows';
import { metricValue, scrapeMetrics } from './support/metrics';
import { type CliResult, type Stack, runCli, startStack } from './support/stack';

/** What `spanlog verify --json` prints. */
type VerifyReport = Verification & { repaired: RepairResult | null };

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

  const verify = async (...args: string[]): Promise<{ run: CliResult; report: VerifyReport }> => {
    const run = await runCli(['verify', '--json', ...args], stack.env);
    return { run, report: JSON.parse(run.stdout) as VerifyReport };
  };
  const projectIn = (report: VerifyReport, tenant: Tenant) =>
    report.projects.find((p) => p.projectId === tenant.projectId) as ProjectVerification;

  it('is clean on a healthy system, names the project and the count of rows deleted behind its back, and --repair mends them without counting usage again', async () => {
    let seq = '';
    for (let i = 0; i < 5; i++) seq = await ingest(stack, a.apiKey, NATIVE_TRACES, smallBatch(`a-${i}`));
    const seqB = await ingest(stack, b.apiKey, NATIVE_TRACES, smallBatch('b-0'));
    expect(await traceStatus(stack, a.apiKey, 'a-4', seq)).toBe(200);
    expect(await traceStatus(stack, b.apiKey, 'b-0', seqB)).toBe(200);

    const healthy = await verify();
    expect(healthy.run.code).toBe(0);
    expect(healthy.report.clean).toBe(true);
    expect(projectIn(healthy.report, a)).toMatchObject({
      messages: 5,
      applied: 5,
      traces: { expected: 5, stored: 5, missing: 0, extra: 0 },
      spans: { expected: 5, stored: 5, missing: 0, extra: 0 },
    });
    const usageBefore = await usageReaching(stack, a.orgId, 5);

    await stack.db.query(`DELETE FROM spans WHERE project_id = $1 AND external_id IN ('a-1-s', 'a-3-s')`, [a.projectId]);
    const damaged = await verify();
    expect(damaged.run.code).toBe(DIFFERENCES);
    expect(damaged.report.clean).toBe(false);
    expect(projectIn(damaged.report, a)).toMatchObject({
      clean: false,
      spans: { expected: 5, stored: 3, missing: 2 },
      writingMissingRows: { count: 2 },
    });
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
    const after = await ingest(stack, a.apiKey, NATIVE_TRACES, smallBatch('a-after'));
    expect(await traceStatus(stack, a.apiKey, 'a-after', after)).toBe(200);
    expect(await usageReaching(stack, a.orgId, 6)).toEqual({ traces: 6, spans: 6 });
  }, 120_000);

  it('finds requests the server skipped without applying them, and --repair applies them and counts them once', async () => {
    await stack.killProcessor('SIGTERM');
    let seq = '';
    for (let i = 0; i < 20; i++) seq = await ingest(stack, b.apiKey, NATIVE_TRACES, smallBatch(`skipped-${i}`));
    const nc = await stack.connectNats();
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
      expect(await traceStatus(stack, b.apiKey, 'skipped-19', seq)).toBe(200);
      expect((await verify()).report.clean).toBe(true);
      return;
    }
    // Reads never claim the skipped requests visible, and the processor says what happened.
    expect(await traceStatus(stack, b.apiKey, 'skipped-19', seq)).toBe(503);
    await eventually(
      async () => stack.recentOutput('processor'),
      (out) => out.includes('acknowledged without being applied'),
    );

    const found = await verify();
    expect(found.run.code).toBe(DIFFERENCES);
    expect(projectIn(found.report, b)).toMatchObject({ clean: false, unapplied: { count: 20 }, spans: { missing: 20 } });
    const repaired = await verify('--repair');
    expect(repaired.run.code).toBe(0);
    expect(repaired.report).toMatchObject({ clean: true, repaired: { messages: 20 } });
    expect(await traceStatus(stack, b.apiKey, 'skipped-19', seq)).toBe(200);
    await usageReaching(stack, b.orgId, 21);
  }, 120_000);

  it('runs in the processor on a schedule, logs applied requests whose rows are missing as an error, and counts them in its metrics', async () => {
    await stack.killProcessor('SIGTERM');
    await stack.startProcessor();
    const seq = await ingest(stack, a.apiKey, NATIVE_TRACES, smallBatch('scheduled'));
    expect(await traceStatus(stack, a.apiKey, 'scheduled', seq)).toBe(200);
    await stack.db.query(`DELETE FROM spans WHERE project_id = $1 AND external_id = 'scheduled-s'`, [a.projectId]);
    const output = await eventually(
      async () => stack.recentOutput('processor'),
      (out) => out.includes('applied requests are missing from the projections'),
      20_000,
    );
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
