import { randomUUID } from 'node:crypto';
import type { ReplayResult } from '@app/projections';
import { type Session, type Tenant, bootstrap, data, eventually, login, mutate } from './support/api';
import { smallBatch } from './support/factories';
import { NATIVE_TRACES, ingest, publishToIngest, traceStatus } from './support/ingest';
import { settledUsage, telemetryRows } from './support/rows';
import { type Stack, runCli, startStack } from './support/stack';
import { type CountingWebhook, countingWebhook } from './support/webhook';

/**
 * `spanlog replay` end to end (issue 14 item 3): a project's stored requests are applied again
 * through the live projection's apply, idempotently: rows removed behind its back come back,
 * nothing else changes, no webhook is called and no usage is counted again, however often it runs.
 */
describe('spanlog replay', () => {
  let stack: Stack;
  let tenant: Tenant;
  let other: Tenant;
  let session: Session;
  let webhook: CountingWebhook;

  beforeAll(async () => {
    webhook = await countingWebhook({ score: 0.5, pass: true });
    stack = await startStack();
    tenant = await bootstrap(stack, 'replay@spanlog.test', 'Replay', 'p', 'team');
    other = await bootstrap(stack, 'replay-other@spanlog.test', 'Replay other', 'p', 'team');
    session = await login(stack, 'replay@spanlog.test');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await webhook?.close();
  });

  const replay = async (...args: string[]): Promise<ReplayResult> => {
    const run = await runCli(['replay', '--project', tenant.projectId, '--json', ...args], stack.env);
    if (run.code !== 0) throw new Error(`replay exited ${run.code}: ${run.stderr}`);
    return JSON.parse(run.stdout) as ReplayResult;
  };
  /** A trace with an LLM call that has an output (which the evaluators select) and a tool call. */
  const agentRun = (traceId: string) => {
    const at = new Date().toISOString();
    return {
      batch: [
        { id: `${traceId}-t`, type: 'trace-create', timestamp: at, body: { id: traceId, name: 'agent run', tags: ['replay'] } },
        {
          id: `${traceId}-llm`,
          type: 'generation-create',
          timestamp: at,
          body: { id: `${traceId}-llm`, traceId, name: 'chat', startTime: at, model: 'm', usage: { input: 3, output: 4 }, output: 'yes' },
        },
        {
          id: `${traceId}-tool`,
          type: 'span-create',
          timestamp: at,
          body: { id: `${traceId}-tool`, traceId, name: 'search', type: 'TOOL', startTime: at, output: 'doc' },
        },
      ],
    };
  };
  const evalJobs = async () =>
    Number((await stack.db.query(`SELECT count(*) FROM eval_jobs WHERE project_id = $1`, [tenant.projectId])).rows[0].count);

  it('brings back rows removed behind the projection, changes nothing else, calls no webhook and counts no usage again, however often it runs', async () => {
    data(await mutate(stack, session.access_token, 'evaluator.create', { projectId: tenant.projectId, name: 'judge', url: webhook.url }));
    let seq = '';
    for (let i = 0; i < 5; i++) seq = await ingest(stack, tenant.apiKey, NATIVE_TRACES, agentRun(`run-${i}`));
    expect(await traceStatus(stack, tenant.apiKey, 'run-4', seq)).toBe(200);
    await ingest(stack, other.apiKey, NATIVE_TRACES, agentRun('other-run'));
    // Each LLM call evaluated once, its score back through INGEST as a request of the project.
    await eventually(
      async () => (await telemetryRows(stack, tenant.projectId)).scores.length,
      (n) => n === 5,
      30_000,
    );
    expect(webhook.calls).toBe(5);
    // An evaluator added later selects every LLM call so far: a replay must not call it for them.
    data(await mutate(stack, session.access_token, 'evaluator.create', { projectId: tenant.projectId, name: 'late', url: webhook.url }));
    const usageBefore = await settledUsage(stack, tenant);
    expect(usageBefore).toEqual({ traces: 5, spans: 10 });
    const original = await telemetryRows(stack, tenant.projectId);
    const otherRows = await telemetryRows(stack, other.projectId);
    const jobs = await evalJobs();

    await stack.db.query(`DELETE FROM spans WHERE project_id = $1 AND external_id IN ('run-1-llm', 'run-3-tool')`, [tenant.projectId]);
    const first = await replay('--from-seq', '1');
    // 5 runs, 5 evaluation scores and the request that settled usage.
    expect(first).toMatchObject({
      projectId: tenant.projectId,
      stream: `${stack.streamPrefix}INGEST`,
      fromSeq: 1,
      messages: 11,
      applied: 11,
      skipped: 0,
      deadLettered: 0,
    });
    expect(first.toSeq).toBeGreaterThanOrEqual(12);
    expect(await telemetryRows(stack, tenant.projectId)).toEqual(original);
    expect(await telemetryRows(stack, other.projectId)).toEqual(otherRows);
    expect(await evalJobs()).toBe(jobs);
    expect(await settledUsage(stack, tenant)).toEqual({ traces: usageBefore.traces + 1, spans: usageBefore.spans + 1 });

    const settled = await telemetryRows(stack, tenant.projectId);
    const second = await replay('--from-seq', '1');
    expect(second).toMatchObject({ messages: 12, applied: 12, skipped: 0 });
    expect(await telemetryRows(stack, tenant.projectId)).toEqual(settled);
    expect(await evalJobs()).toBe(jobs);
    expect(await settledUsage(stack, tenant)).toEqual({ traces: usageBefore.traces + 2, spans: usageBefore.spans + 2 });
    expect(webhook.calls).toBe(5);
  }, 120_000);

  it('starts at the first request stored at or after --from-time, and leaves a dead-lettered request to spanlog dlq retry', async () => {
    const since = new Date();
    let seq = '';
    for (const id of ['late-0', 'late-1']) seq = await ingest(stack, tenant.apiKey, NATIVE_TRACES, smallBatch(id));
    expect(await traceStatus(stack, tenant.apiKey, 'late-1', seq)).toBe(200);
    const nc = await stack.connectNats();
    try {
      const poisoned = await publishToIngest(nc, stack, tenant, new TextEncoder().encode('{"batch": 1}'));
      const jsm = await nc.jetstreamManager();
      const dlq = `${stack.streamPrefix}DLQ`;
      await eventually(
        async () => (await jsm.streams.info(dlq)).state.messages,
        (n) => n === 1,
      );

      const fromTime = await replay('--from-time', since.toISOString());
      expect(fromTime).toMatchObject({ messages: 3, applied: 2, skipped: 0, deadLettered: 1, toSeq: poisoned });
      expect(fromTime.fromSeq).toBe(poisoned - 2);

      // Gone from the dead-letter stream (removed by hand), it is merely unreadable: skipped, with why on stderr.
      await jsm.streams.deleteMessage(dlq, (await jsm.streams.info(dlq)).state.last_seq);
      const run = await runCli(['replay', '--project', tenant.projectId, '--from-seq', String(poisoned)], stack.env);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(`replay: skipped sequence ${poisoned}: ingest.batch/v1 data rejected`);
      expect(run.stdout).toContain(`1 messages read: 0 applied, 1 skipped (unreadable), 0 dead-lettered`);
    } finally {
      await nc.close();
    }
  });

  it('refuses a start given twice or not at all, and a project that does not exist, in one line', async () => {
    const both = await runCli(
      ['replay', '--project', tenant.projectId, '--from-seq', '1', '--from-time', new Date().toISOString()],
      stack.env,
    );
    expect(both).toMatchObject({ code: 1, stderr: 'spanlog: give one of --from-seq and --from-time\n' });
    expect((await runCli(['replay', '--project', tenant.projectId], stack.env)).stderr).toBe(
      'spanlog: give one of --from-seq and --from-time\n',
    );
    expect((await runCli(['replay', '--project', tenant.projectId, '--from-seq', '0'], stack.env)).stderr).toBe(
      'spanlog: --from-seq must be a stream sequence (a whole number from 1)\n',
    );
    const unknown = randomUUID();
    expect(await runCli(['replay', '--project', unknown, '--from-seq', '1'], stack.env)).toMatchObject({
      code: 1,
      stderr: `spanlog: no project ${unknown}\n`,
    });
  });
});
