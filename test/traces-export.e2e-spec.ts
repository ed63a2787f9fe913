import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXPORT_CSV_COLUMNS, parseCsv } from '@app/domain';
import { PASSWORD, type Tenant, bootstrap, eventually, login, send } from './support/api';
import { nativeBatch } from './support/factories';
import { NATIVE_TRACES, SCORES, ingest, traceVisible } from './support/ingest';
import { launchChromium, logInToDashboard } from './support/browser';
import { Stack, runCli } from './support/stack';

const TRACES = 300;
const SPANS = 2;
/** Bytes of padding per span: the export with spans is ~12 MB, more than the sockets between client and server hold. */
const PADDING = 20_000;
/** Each tenth trace has a score. */
const SCORED = (t: number) => t % 10 === 0;
/** What a CSV must carry intact: quotes, a comma, a line break and characters beyond ASCII. */
const nameOf = (t: number) => `trace ${t}: "quoted", comma\nsecond line é 😀`;
const SPAN_TEXT = 'line one\r\nline "two", é😀';

/** The body as sent: valid UTF-8 (else this throws), its byte-order mark kept (`Response.text` drops it). */
const bodyText = async (res: Response) => new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(await res.arrayBuffer());

/** CSV rows as objects by header, after the byte-order mark spreadsheet programs read UTF-8 by. */
function csvRecords(text: string): Record<string, string>[] {
  expect(text.startsWith('\uFEFF')).toBe(true);
  // RFC 4180 rows end with CRLF (a line break inside a quoted field stays as it was).
  expect(text.endsWith('\r\n')).toBe(true);
  // Read back by the dataset import's RFC 4180 reader: what one of our files exports, another imports.
  const [header, ...rows] = parseCsv(text.slice(1)).map((row) => row.fields);
  expect(header).toEqual(EXPORT_CSV_COLUMNS);
  return rows.map((cells) => {
    expect(cells).toHaveLength(header.length);
    return Object.fromEntries(header.map((h, i) => [h, cells[i]]));
  });
}

/** Each trace of the export exactly once, by its native id. */
function expectEveryTraceOnce(ids: string[], seed: string) {
  expect(ids).toHaveLength(TRACES);
  expect(new Set(ids)).toEqual(new Set(Array.from({ length: TRACES }, (_, t) => `${seed}-t${t}`)));
}

/**
 * GET /api/v1/traces/export and `spanlog traces export` (issue 32): every matching trace once,
 * as JSONL or CSV, with spans and scores when asked, filter errors as the list's, and a client
 * that goes away stops the server's reads.
 */
describe('trace export', () => {
  let stack: Stack;
  let tenant: Tenant;
  const seed = `export-${randomUUID()}`;
  const exportUrl = (query: string) => `${stack.baseUrl}/api/v1/traces/export?${query}`;
  const get = (query: string, key = tenant.apiKey) => fetch(exportUrl(query), { headers: { authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    // Info logs: the test reads the API's line saying how an export ended.
    stack = await Stack.start({ LOG_LEVEL: 'info' }, { keepOutput: true });
    tenant = await bootstrap(stack, 'export@spanlog.test', 'Export', 'traces');
    const { batch } = nativeBatch(TRACES, SPANS, seed);
    for (const e of batch) {
      if (e.type === 'trace-create') e.body.name = nameOf(Number(/-t(\d+)$/.exec(e.body.id as string)?.[1]));
      else e.body.input = { text: SPAN_TEXT, pad: 'x'.repeat(PADDING) };
    }
    const perRequest = 25 * (1 + SPANS);
    for (let i = 0; i < batch.length; i += perRequest)
      await ingest(stack, tenant.apiKey, NATIVE_TRACES, { batch: batch.slice(i, i + perRequest) });
    const scores = Array.from({ length: TRACES }, (_, t) => t)
      .filter(SCORED)
      .map((t) => ({ traceId: `${seed}-t${t}`, name: 'quality', value: t, comment: 'ok, "fine"\nreally' }));
    const seq = await ingest(stack, tenant.apiKey, SCORES, { scores });
    await traceVisible(stack, tenant.apiKey, `${seed}-t0`, seq);
  }, 180_000);

  afterAll(() => stack?.stop());

  it('streams every trace once as JSONL, one per line, with its spans and scores when included', async () => {
    const plain = await get('format=jsonl');
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(plain.headers.get('content-disposition')).toMatch(/^attachment; filename="traces-.*\.jsonl"$/);
    expect(plain.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
    const lines = (await plain.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expectEveryTraceOnce(
      lines.map((t) => t.externalId),
      seed,
    );
    expect(lines[0]).toMatchObject({ name: nameOf(TRACES - 1), spanCount: SPANS });
    expect(lines[0].spans).toBeUndefined();

    const full = await get('format=jsonl&include=spans,scores');
    const traces = (await full.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expectEveryTraceOnce(
      traces.map((t) => t.externalId),
      seed,
    );
    for (const trace of traces) {
      const t = Number(/-t(\d+)$/.exec(trace.externalId)?.[1]);
      expect(trace.spans.map((s: { externalId: string }) => s.externalId)).toEqual([`${seed}-t${t}-s0`, `${seed}-t${t}-s1`]);
      expect(trace.spans[1].input).toEqual({ text: SPAN_TEXT, pad: 'x'.repeat(PADDING) });
      expect(trace.scores.map((c: { value: number }) => c.value)).toEqual(SCORED(t) ? [t] : []);
    }
  });

  it('streams CSV with fixed columns that reads back exactly: quotes, commas, line breaks, UTF-8', async () => {
    const plain = await get('format=csv');
    expect(plain.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows = csvRecords(await bodyText(plain));
    expect(rows.every((r) => r.record === 'trace')).toBe(true);
    expectEveryTraceOnce(
      rows.map((r) => r.externalId),
      seed,
    );
    for (const row of rows) expect(row.name).toBe(nameOf(Number(/-t(\d+)$/.exec(row.externalId)?.[1])));

    const full = csvRecords(await bodyText(await get('format=csv&include=spans,scores')));
    const byRecord = (record: string) => full.filter((r) => r.record === record);
    expectEveryTraceOnce(
      byRecord('trace').map((r) => r.externalId),
      seed,
    );
    expect(byRecord('span')).toHaveLength(TRACES * SPANS);
    expect(JSON.parse(byRecord('span')[0].input)).toEqual({ text: SPAN_TEXT, pad: 'x'.repeat(PADDING) });
    const scores = byRecord('score');
    expect(scores).toHaveLength(TRACES / 10);
    expect(scores[0]).toMatchObject({ name: 'quality', comment: 'ok, "fine"\nreally' });
    // Each span and score row follows its trace's row.
    let traceId = '';
    for (const row of full) {
      if (row.record === 'trace') traceId = row.id;
      else expect(row.traceId).toBe(traceId);
    }
  });

  it('takes every trace-list filter, and refuses a bad one with the list’s 400', async () => {
    const one = await get(`format=jsonl&name=${encodeURIComponent(nameOf(7))}`);
    expect(
      (await one.text())
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).externalId),
    ).toEqual([`${seed}-t7`]);
    const scored = await get('format=jsonl&scoreName=quality&minScore=100');
    expect((await scored.text()).trimEnd().split('\n')).toHaveLength(20);

    const list = await send(stack, 'GET', '/api/v1/traces?fromTimestamp=yesterday', { token: tenant.apiKey });
    const refused = await send(stack, 'GET', '/api/v1/traces/export?format=csv&fromTimestamp=yesterday', { token: tenant.apiKey });
    expect(list.status).toBe(400);
    expect(refused).toEqual(list);
    expect(await send(stack, 'GET', '/api/v1/traces/export?format=xml', { token: tenant.apiKey })).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('format: must be one of jsonl, csv') } },
    });
    expect(await send(stack, 'GET', '/api/v1/traces/export?format=jsonl&include=events', { token: tenant.apiKey })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringContaining('include: must be a comma-separated list of spans, scores') } },
    });
    expect((await get('format=jsonl', 'sk-not-a-key')).status).toBe(401);
  });

  it('stops reading once the client goes away', async () => {
    const res = await get('format=jsonl&include=spans,scores');
    const reader = res.body?.getReader();
    await reader?.read();
    // Cancelling the body closes the connection: the client is gone with most of the export unread.
    await reader?.cancel();
    const ended = await eventually(
      async () =>
        stack
          .recentOutput('api')
          .split('\n')
          .filter((l) => l.includes('"trace export ended"') && l.includes('client closed')),
      (lines) => lines.length > 0,
    );
    const line = JSON.parse(ended[0]);
    expect(line).toMatchObject({ outcome: 'client closed', format: 'jsonl' });
    expect(line.traces).toBeLessThan(TRACES);
  });

  it('`spanlog traces export` streams to a file with a key, and to stdout with a login session', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanlog-export-'));
    const file = join(dir, 'traces.csv');
    const env: NodeJS.ProcessEnv = { ...stack.env, XDG_CONFIG_HOME: dir };
    delete env.SPANLOG_API_KEY;
    const withKey = ['--key', tenant.apiKey, '--api', stack.baseUrl];
    const run = await runCli(['traces', 'export', '--format', 'csv', '--include', 'scores', '-o', file, ...withKey], env);
    expect(run).toMatchObject({ code: 0, stdout: '' });
    const rows = csvRecords(readFileSync(file, 'utf8'));
    expectEveryTraceOnce(
      rows.filter((r) => r.record === 'trace').map((r) => r.externalId),
      seed,
    );
    expect(rows.filter((r) => r.record === 'score')).toHaveLength(TRACES / 10);

    const bad = await runCli(['traces', 'export', '--format', 'jsonl', '--from', 'yesterday', ...withKey], env);
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringContaining('fromTimestamp') });

    const loggedIn = await runCli(['login', '--email', 'export@spanlog.test', '--password', PASSWORD, '--api', stack.baseUrl], env);
    expect(loggedIn.code).toBe(0);
    const session = await runCli(['traces', 'export', '--format', 'jsonl', '--tags', 'none-has-it'], env);
    expect(session).toMatchObject({ code: 0, stdout: '' });
    const all = await runCli(['traces', 'export', '--format', 'jsonl'], env);
    expectEveryTraceOnce(
      all.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).externalId),
      seed,
    );
  }, 60_000);

  it('exports from the dashboard: the Export buttons download every trace the filters match', async () => {
    const chromium = await launchChromium();
    try {
      const page = await chromium.context.newPage();
      await logInToDashboard(page, stack.baseUrl, 'export@spanlog.test', PASSWORD);
      await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces?name=${encodeURIComponent(nameOf(7))}`);
      await page.getByRole('table', { name: 'Traces' }).getByRole('row').nth(1).waitFor();
      const exports = page.getByRole('group', { name: 'Export the matching traces' });
      await page.screenshot({ path: join(process.env.SPANLOG_SCREENSHOTS ?? tmpdir(), 'trace-list-export.png') });
      const [csv] = await Promise.all([page.waitForEvent('download'), exports.getByRole('button', { name: 'Export CSV' }).click()]);
      expect(csv.suggestedFilename()).toMatch(/^traces-.*\.csv$/);
      const rows = csvRecords(readFileSync(await csv.path(), 'utf8'));
      expect(rows.map((r) => [r.externalId, r.name])).toEqual([[`${seed}-t7`, nameOf(7)]]);

      await page.goto(`${stack.baseUrl}/p/${tenant.projectId}/traces`);
      await page.getByRole('table', { name: 'Traces' }).getByRole('row').nth(1).waitFor();
      const [jsonl] = await Promise.all([page.waitForEvent('download'), exports.getByRole('button', { name: 'Export JSONL' }).click()]);
      const lines = readFileSync(await jsonl.path(), 'utf8')
        .trimEnd()
        .split('\n');
      expectEveryTraceOnce(
        lines.map((l) => JSON.parse(l).externalId),
        seed,
      );
    } finally {
      await chromium.close();
    }
  }, 60_000);

  it('answers the session route only for a member of the project, never for an API key', async () => {
    const { access_token: token } = await login(stack, 'export@spanlog.test');
    const path = `/api/v1/projects/${tenant.projectId}/traces/export?format=jsonl`;
    const res = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    expectEveryTraceOnce(
      (await res.text())
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).externalId),
      seed,
    );
    expect((await send(stack, 'GET', path, { token: tenant.apiKey })).status).toBe(401);
    const stranger = await bootstrap(stack, 'stranger@spanlog.test', 'Other', 'other');
    const theirs = await login(stack, 'stranger@spanlog.test');
    expect((await send(stack, 'GET', path, { token: theirs.access_token })).status).toBe(403);
    expect(stranger.projectId).not.toBe(tenant.projectId);
  });
});
