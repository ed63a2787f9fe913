import { randomUUID } from 'node:crypto';
import type { NatsConnection } from 'nats';
import type { DeadLetter } from '@app/eventlog';
import type { RetryResult } from '@app/projections';
import { type Tenant, bootstrap, data, eventually, login, mutate, send } from './support/api';
import { publishToIngest } from './support/ingest';
import { usageOf } from './support/rows';
import { type Stack, runCli, startStack } from './support/stack';
import { type CountingWebhook, countingWebhook } from './support/webhook';

const INCOMPLETE = 2;

/**
 * Dead letters end to end (issue 14 item 5): messages the processor's consumers could not
 * apply are listed with their reason and source, shown in full, and, once what made them fail
 * is fixed, applied through the projection that dead-lettered them and removed from the
 * dead-letter stream. A message whose consumer has no way to apply it again stays.
 */
describe('spanlog dlq', () => {
  let stack: Stack;
  let nc: NatsConnection;
  let tenant: Tenant;
  let webhook: CountingWebhook;
  const blobName = `missing-${randomUUID()}`;
  const traceId = `dlq-${randomUUID()}`;
  const seqs = { blob: 0, invalid: 0 };

  const dlq = async (...args: string[]) => {
    const run = await runCli(['dlq', ...args], stack.env);
    return { run, out: args.includes('--json') && run.stdout ? JSON.parse(run.stdout) : null };
  };
  const list = async () => (await dlq('list', '--json')).out as DeadLetter[];
  const fromIngest = (seq: number) => (l: DeadLetter) => l.stream === `${stack.streamPrefix}INGEST` && l.seq === seq;
  const ingestSubject = () => `${stack.streamPrefix}ingest.${tenant.orgId}.${tenant.projectId}.batch`;
  /** A trace with an LLM call that has an output: its evaluation shows whether a retry schedules it. */
  const request = () => {
    const at = new Date().toISOString();
    return {
      batch: [
        { id: `${traceId}-t`, type: 'trace-create', timestamp: at, body: { id: traceId, name: 'held back' } },
        {
          id: `${traceId}-llm`,
          type: 'span-create',
          timestamp: at,
          body: { id: `${traceId}-llm`, traceId, name: 'chat', type: 'LLM', startTime: at, output: 'answer' },
        },
        {
          id: `${traceId}-tool`,
          type: 'span-create',
          timestamp: at,
          body: { id: `${traceId}-tool`, traceId, name: 'search', type: 'TOOL', startTime: at },
        },
      ],
    };
  };
  const usage = () => usageOf(stack, tenant.orgId);

  beforeAll(async () => {
    webhook = await countingWebhook({ score: 1, pass: true });
    stack = await startStack();
    nc = await stack.connectNats();
    tenant = await bootstrap(stack, 'dlq@spanlog.test', 'Dlq', 'p', 'team');
    const session = await login(stack, 'dlq@spanlog.test');
    data(await mutate(stack, session.access_token, 'evaluator.create', { projectId: tenant.projectId, name: 'judge', url: webhook.url }));
  }, 120_000);

  afterAll(async () => {
    await nc?.close();
    await stack?.stop();
    await webhook?.close();
  });

  it('lists what the consumers dead-lettered with the reason, the source stream, consumer, sequence and subject', async () => {
    // A request whose chunk lives in the object store, which does not hold it (yet).
    seqs.blob = await publishToIngest(nc, stack, tenant, new Uint8Array(), { 'Spanlog-Blob': blobName });
    // A request that fails validation: it can never be applied.
    seqs.invalid = await publishToIngest(nc, stack, tenant, new TextEncoder().encode(JSON.stringify({ batch: 'not a list' })));
    // A usage count that is not JSON, on another consumer's stream.
    await nc.jetstream().publish(`${stack.streamPrefix}usage.poison`, new TextEncoder().encode('not json'));

    const letters = await eventually(list, (l) => l.length === 3);
    const ingest = { stream: `${stack.streamPrefix}INGEST`, consumer: `${stack.streamPrefix}ingest-projector`, subject: ingestSubject() };
    expect(letters).toEqual(
      expect.arrayContaining([
        {
          id: expect.any(Number),
          time: expect.any(String),
          ...ingest,
          seq: seqs.blob,
          reason: `blob ${blobName} is missing from ${stack.streamPrefix}INGEST_BLOBS`,
        },
        {
          id: expect.any(Number),
          time: expect.any(String),
          ...ingest,
          seq: seqs.invalid,
          reason: expect.stringContaining('ingest.batch/v1 data rejected'),
        },
        {
          id: expect.any(Number),
          time: expect.any(String),
          stream: `${stack.streamPrefix}USAGE`,
          consumer: `${stack.streamPrefix}usage-projector`,
          seq: expect.any(Number),
          subject: `${stack.streamPrefix}usage.poison`,
          reason: expect.any(String),
        },
      ]),
    );
    const human = await dlq('list');
    expect(human.run.code).toBe(0);
    expect(human.run.stdout).toContain(`${ingest.stream}/${ingest.consumer} #${seqs.blob}`);
    expect(human.run.stdout).toContain(`blob ${blobName} is missing`);
  });

  it('shows one in full: its headers, and its data decoded when it is JSON', async () => {
    const letters = await list();
    const invalid = letters.find(fromIngest(seqs.invalid)) as DeadLetter;
    const shown = await dlq('show', '--id', String(invalid.id), '--json');
    expect(shown.run.code).toBe(0);
    expect(shown.out).toMatchObject({
      ...invalid,
      headers: { 'Spanlog-Schema': 'ingest.batch/v1', 'Spanlog-Org': tenant.orgId },
      data: { batch: 'not a list' },
    });

    const blob = letters.find(fromIngest(seqs.blob)) as DeadLetter;
    expect((await dlq('show', '--id', String(blob.id), '--json')).out).toMatchObject({
      headers: { 'Spanlog-Blob': blobName },
      data: null,
      dataError: expect.stringContaining('is missing'),
    });
    const usageLetter = letters.find((l) => l.stream === `${stack.streamPrefix}USAGE`) as DeadLetter;
    expect((await dlq('show', '--id', String(usageLetter.id), '--json')).out).toMatchObject({
      data: null,
      dataText: 'not json',
      dataError: expect.stringContaining('not JSON'),
    });

    const missing = await dlq('show', '--id', '999999', '--json');
    expect(missing.run.code).toBe(1);
    expect(missing.run.stderr.trim()).toBe(`spanlog: no dead letter 999999 in ${stack.streamPrefix}DLQ`);
  });

  it('keeps every dead letter while its cause remains, saying why, and exits non-zero', async () => {
    const retry = await dlq('retry', '--json');
    expect(retry.run.code).toBe(INCOMPLETE);
    const result = retry.out as RetryResult;
    expect(result).toMatchObject({ applied: 0, failed: 2, kept: 1 });
    expect(result.retried.find(fromIngest(seqs.blob))).toMatchObject({
      outcome: 'failed',
      error: expect.stringContaining(`blob ${blobName} is missing`),
    });
    expect(result.retried.find((r) => r.stream === `${stack.streamPrefix}USAGE`)).toMatchObject({
      outcome: 'kept',
      error: expect.stringContaining('no way to be applied again'),
    });
    expect(await list()).toHaveLength(3);
    expect(await usage()).toEqual({ traces: 0, spans: 0 });
  });

  /** Traces and spans are usage messages of their own: wait for both before comparing. */
  const counted = (u: { traces: number; spans: number }) => u.traces >= 1 && u.spans >= 2;

  it('applies a dead letter through the telemetry projection once its cause is fixed (a rebuild first), counts it once, evaluates it, and removes it', async () => {
    const before = await runCli(['verify', '--json', '--project', tenant.projectId], stack.env);
    expect(JSON.parse(before.stdout).projects[0]).toMatchObject({ rejected: { count: 2 }, clean: false });
    const os = await nc.jetstream().views.os(`${stack.streamPrefix}INGEST_BLOBS`);
    await os.putBlob({ name: blobName }, new TextEncoder().encode(JSON.stringify(request())));
    const blobLetter = (await list()).find(fromIngest(seqs.blob)) as DeadLetter;

    // A rebuild before the retry applies the dead letter's request too, and counts it: it was never applied live.
    expect(await usage()).toEqual({ traces: 0, spans: 0 });
    const rebuilt = await runCli(['rebuild', 'telemetry', '--json'], stack.env);
    expect(rebuilt.code).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toMatchObject({ usageCounted: { traces: 1, spans: 2 } });
    expect(await eventually(usage, counted)).toEqual({ traces: 1, spans: 2 });

    const retry = await dlq('retry', '--id', String(blobLetter.id), '--json');
    expect(retry.run.code).toBe(0);
    expect(retry.out).toEqual({ retried: [{ ...blobLetter, outcome: 'applied' }], applied: 1, failed: 0, kept: 0 });

    const trace = await send(stack, 'GET', `/api/v1/traces/${traceId}`, { token: tenant.apiKey });
    expect(trace.status).toBe(200);
    expect(trace.body.spans).toHaveLength(2);
    expect((await list()).filter(fromIngest(seqs.blob))).toEqual([]);
    expect(await eventually(usage, counted)).toEqual({ traces: 1, spans: 2 });
    // The retry applied it the way the live projection would have: its LLM call is evaluated, once.
    await eventually(
      async () => (await send(stack, 'GET', `/api/v1/traces/${traceId}`, { token: tenant.apiKey })).body.scores,
      (s: unknown[]) => s.length === 1,
    );
    expect(webhook.calls).toBe(1);

    // Its sequence counts as applied and its rows are there; only the invalid request still differs.
    const after = JSON.parse((await runCli(['verify', '--json', '--project', tenant.projectId], stack.env)).stdout).projects[0];
    expect(after).toMatchObject({ rejected: { count: 1, seqs: [seqs.invalid] }, spans: { missing: 0 }, traces: { missing: 0 } });

    const again = await dlq('retry', '--id', String(blobLetter.id), '--json');
    expect(again.run.code).toBe(1);
    expect(again.run.stderr.trim()).toBe(`spanlog: no dead letter ${blobLetter.id} in ${stack.streamPrefix}DLQ`);
    const rest = await dlq('retry');
    expect(rest.run.code).toBe(INCOMPLETE);
    expect(rest.run.stdout).toContain('0 applied and removed, 1 failed again, 1 kept');
    expect(await list()).toHaveLength(2);
    expect(await usage()).toEqual({ traces: 1, spans: 2 });
  });
});
