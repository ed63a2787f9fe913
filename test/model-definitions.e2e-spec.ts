import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { LangfuseClient } from '@langfuse/client';
import { attrs, exportOf, span } from '@app/otlp/testing/otlp-builders';
import { PASSWORD, type Session, type Tenant, bootstrap, data, eventually, login, query, send } from './support/api';
import { OTLP_TRACES, write } from './support/ingest';
import { telemetryRows } from './support/rows';
import { type Stack, runCli, startStack } from './support/stack';

const EMAIL = 'models@spanlog.test';
/** USD per token of the project's own gpt-4o price. */
const OWN = { input: 1e-3, output: 2e-3 };
/** Between two reads during the recomputation: at most 50 a second, half the Free plan's rate. */
const READ_PAUSE_MS = 20;

/**
 * Issue 28: a project's own price definition, created with the real Langfuse client, re-costs
 * the project's earlier spans of that model while reads keep answering, the rows equal a fresh
 * rebuild's, the overview sums the new costs, and deleting the definition restores the
 * built-in price. Through the real API, JetStream, processor and CLI.
 */
describe('project model price definitions', () => {
  let stack: Stack;
  let tenant: Tenant;
  let session: Session;
  let langfuse: LangfuseClient;
  const configDirs: string[] = [];
  const traceId = randomBytes(16).toString('hex');
  const T0 = Date.now() - 60_000;

  const spans = async () => (await telemetryRows(stack, tenant.projectId)).spans;
  const recomputation = async () =>
    data(await query(stack, session.access_token, 'model.list', { projectId: tenant.projectId })).recomputation;
  const recomputed = () => eventually(recomputation, (r) => r?.status === 'done', 30_000);
  const overviewCost = async () =>
    data(
      await query(stack, session.access_token, 'stats.overview', {
        projectId: tenant.projectId,
        from: new Date(T0 - 3_600_000).toISOString(),
        to: new Date(Date.now() + 60_000).toISOString(),
      }),
    ).models.reduce((sum: number, m: { costUsd: number }) => sum + m.costUsd, 0) as number;
  const sumOf = (rows: { cost: number | null }[]) => rows.reduce((sum, r) => sum + (r.cost ?? 0), 0);

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, EMAIL, 'Models', 'p');
    session = await login(stack, EMAIL);
    langfuse = new LangfuseClient({ baseUrl: stack.baseUrl, publicKey: 'pk-lf-anything', secretKey: tenant.apiKey });
    const body = exportOf(
      Array.from({ length: 40 }, (_, i) =>
        span({
          traceId,
          spanId: randomBytes(8).toString('hex'),
          parentSpanId: '',
          name: `call ${i}`,
          startTimeUnixNano: `${BigInt(T0 + i) * 1_000_000n}`,
          endTimeUnixNano: `${BigInt(T0 + i + 5) * 1_000_000n}`,
          attributes: attrs({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 1000, 'gen_ai.usage.output_tokens': 100 }),
        }),
      ),
    );
    const res = await write(stack, tenant.apiKey, OTLP_TRACES, body);
    expect(res.status).toBeLessThan(300);
    expect((await send(stack, 'GET', `/api/v1/traces/${traceId}?minSeq=${res.seq}`, { token: tenant.apiKey })).status).toBe(200);
  }, 120_000);

  afterAll(() => {
    for (const dir of configDirs) rmSync(dir, { recursive: true, force: true });
    return stack?.stop();
  });

  it('re-costs earlier spans of a model defined with api.models.create, reads answering 200 throughout, as a fresh rebuild has them', async () => {
    const builtIn = await spans();
    expect(builtIn).toHaveLength(40);
    expect(new Set(builtIn.map((s) => s.cost_source))).toEqual(new Set(['price:gpt-4o']));
    await eventually(overviewCost, (cost) => Math.abs(cost - sumOf(builtIn)) < 1e-9);

    const model = await langfuse.api.models.create({
      modelName: 'gpt-4o',
      matchPattern: '(?i)^gpt-4o$',
      unit: 'TOKENS',
      inputPrice: OWN.input,
      outputPrice: OWN.output,
    });
    expect(model).toMatchObject({
      modelName: 'gpt-4o',
      matchPattern: '(?i)^gpt-4o$',
      inputPrice: OWN.input,
      outputPrice: OWN.output,
      isLangfuseManaged: false,
      startDate: null,
    });

    // Reads keep answering while the recomputation runs: paced below the Free plan's rate, so
    // that the key's own bucket running dry (a 429 on a fast machine) cannot stand in for a read.
    const statuses: number[] = [];
    let reading = true;
    const reads = (async () => {
      while (reading) {
        statuses.push((await send(stack, 'GET', `/api/v1/traces/${traceId}`, { token: tenant.apiKey })).status);
        await sleep(READ_PAUSE_MS);
      }
    })();
    await recomputed();
    reading = false;
    await reads;
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(await recomputation()).toMatchObject({ status: 'done', spansTotal: 40, spansDone: 40, spansRecosted: 40 });

    const recosted = await spans();
    expect(new Set(recosted.map((s) => s.cost_source))).toEqual(new Set([`price:${model.id}`]));
    expect(recosted[0].cost).toBeCloseTo(1000 * OWN.input + 100 * OWN.output, 12);
    // After the reads above the key's bucket may be empty for a moment: a 429 is not what this checks.
    const trace = await eventually(
      () => send(stack, 'GET', `/api/v1/traces/${traceId}`, { token: tenant.apiKey }),
      (r) => r.status !== 429,
    );
    expect(trace.status).toBe(200);
    expect(trace.body.spans[0]).toMatchObject({
      costSource: `price:${model.id}`,
      // The project's own definition is named as a built-in one is, for the span page.
      costDefinition: { id: model.id, modelName: 'gpt-4o' },
      costDetails: { input: 1000 * OWN.input, output: 100 * OWN.output },
    });
    // The overview follows: its buckets were marked and recounted.
    await eventually(overviewCost, (cost) => Math.abs(cost - sumOf(recosted)) < 1e-9);

    const rebuilt = await runCli(['rebuild', 'telemetry', '--json'], stack.env);
    expect(rebuilt.code).toBe(0);
    expect(await spans()).toEqual(recosted);
  }, 120_000);

  it("answers Langfuse's models API: list and get with the built-in ones, refusals naming the field", async () => {
    const list = await langfuse.api.models.list({ limit: 100 });
    const own = list.data.find((m) => !m.isLangfuseManaged);
    expect(own).toMatchObject({ modelName: 'gpt-4o', prices: { input: { price: OWN.input }, output: { price: OWN.output } } });
    expect(list.data.some((m) => m.isLangfuseManaged && m.modelName === 'gpt-4o')).toBe(true);
    expect(list.meta.totalItems).toBeGreaterThan(list.data.length - 1);
    expect(await langfuse.api.models.get(own!.id)).toMatchObject({ id: own!.id, pricingTiers: [{ isDefault: true, prices: OWN }] });

    const basic = `Basic ${Buffer.from(`pk-lf-anything:${tenant.apiKey}`).toString('base64')}`;
    const post = (body: unknown) =>
      fetch(`${stack.baseUrl}/api/public/models`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const refused = async (body: unknown, field: RegExp) => {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(field);
    };
    const valid = { modelName: 'mine', matchPattern: '(?i)^mine$', unit: 'TOKENS', inputPrice: 1e-6 };
    await refused({ ...valid, matchPattern: '^mine($' }, /^matchPattern: must be a valid regular expression/);
    await refused({ ...valid, matchPattern: '^(a+)+$' }, /^matchPattern: must not repeat a group/);
    await refused({ ...valid, inputPrice: -1 }, /^inputPrice: /);
    await refused({ ...valid, unit: 'CHARACTERS' }, /^unit: must be one of TOKENS/);
    await refused({ ...valid, modelName: 'gpt-4o', matchPattern: '(?i)^gpt-4o$' }, /^startDate: definition /);
    expect((await fetch(`${stack.baseUrl}/api/public/models`, { headers: { authorization: 'Basic bm9ib2R5Om5vdGhpbmc=' } })).status).toBe(
      401,
    );
  });

  it('lists the definitions and the recomputation in `spanlog models list`; deleting the definition restores the built-in price', async () => {
    const config = mkdtempSync(join(tmpdir(), 'spanlog-models-'));
    configDirs.push(config);
    const env: NodeJS.ProcessEnv = { ...stack.env, XDG_CONFIG_HOME: config };
    delete env.SPANLOG_API_KEY;
    expect((await runCli(['login', '--email', EMAIL, '--password', PASSWORD, '--api', stack.baseUrl, '--json'], env)).code).toBe(0);
    const listed = await runCli(['models', 'list', '--project', tenant.projectId, '--json'], env);
    expect(listed.code).toBe(0);
    const list = JSON.parse(listed.stdout);
    expect(list.project).toHaveLength(1);
    expect(list.recomputation).toMatchObject({ status: 'done', spansDone: 40 });
    const human = await runCli(['models', 'list', '--project', tenant.projectId], env);
    expect(human.stdout).toContain('recomputation: done, 40/40 spans looked at, 40 re-costed');

    const [own] = list.project;
    const before = await recomputation();
    await langfuse.api.models.delete(own.id);
    await eventually(recomputation, (r) => r?.status === 'done' && r.startedAt !== before.startedAt, 30_000);
    const restored = await spans();
    expect(new Set(restored.map((s) => s.cost_source))).toEqual(new Set(['price:gpt-4o']));
    await eventually(overviewCost, (cost) => Math.abs(cost - sumOf(restored)) < 1e-9);

    const added = await runCli(
      ['models', 'add', '--project', tenant.projectId, '--model', 'gpt-4o', '--pattern', '^gpt-4o$', '--price', 'input=0.001', '--json'],
      env,
    );
    expect(added.code).toBe(0);
    const { id } = JSON.parse(added.stdout);
    await eventually(async () => (await spans()).every((s) => s.cost_source === `price:${id}`), Boolean, 30_000);
    expect((await runCli(['models', 'rm', '--project', tenant.projectId, '--id', id, '--json'], env)).code).toBe(0);
    await eventually(async () => (await spans()).every((s) => s.cost_source === 'price:gpt-4o'), Boolean, 30_000);
  }, 180_000);
});
