import { setTimeout as sleep } from 'node:timers/promises';
import { nativeBatch } from './support/factories';
import { type Stack, runCli, startStack } from './support/stack';

// Many more messages than one fetch (64), so the kill lands with a backlog still to project.
const REQUESTS = 600;
const SPANS_PER_REQUEST = 20;

describe('processor killed in the middle of a backlog', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    stack = await startStack();
    const res = await runCli(['admin', 'bootstrap', '--email', 'kill@spanlog.test', '--password', 'correct horse battery', '--org', 'Kill', '--project', 'kill', '--plan', 'enterprise', '--json'], stack.env);
    key = (JSON.parse(res.stdout) as { apiKey: string }).apiKey;
  }, 120_000);

  afterAll(() => stack?.stop());

  const spanCount = async (): Promise<number> => (await stack.db.query('SELECT count(*)::int AS n FROM spans')).rows[0].n as number;

  /** Reads with read-your-writes until visible: messages the killed instance held come back after the ack wait. */
  const readUntilVisible = async (seq: string): Promise<number> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await fetch(`${stack.baseUrl}/api/v1/traces?limit=1&minSeq=${seq}`, { headers: { authorization: `Bearer ${key}` } });
      if (res.status !== 503 || Date.now() > deadline) return res.status;
    }
  };

  it('loses and duplicates nothing across kill -9 and restart', async () => {
    await stack.killProcessor('SIGKILL');
    let lastSeq = '';
    for (let i = 0; i < REQUESTS; i++) {
      const res = await fetch(`${stack.baseUrl}/api/v1/traces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(nativeBatch(1, SPANS_PER_REQUEST, `kill-${i}`)),
      });
      expect(res.status).toBe(201);
      lastSeq = res.headers.get('spanlog-seq') as string;
    }
    const expected = REQUESTS * SPANS_PER_REQUEST;
    expect(await spanCount()).toBe(0);

    await stack.startProcessor();
    const deadline = Date.now() + 30_000;
    while ((await spanCount()) === 0 && Date.now() < deadline) await sleep(5);
    await stack.killProcessor('SIGKILL');
    const midway = await spanCount();
    expect(midway).toBeGreaterThan(0);
    expect(midway).toBeLessThan(expected);

    await stack.startProcessor();
    expect(await readUntilVisible(lastSeq)).toBe(200);
    const { rows } = await stack.db.query(
      'SELECT count(*)::int AS spans, count(DISTINCT external_id)::int AS distinct_spans, count(DISTINCT trace_id)::int AS traces FROM spans',
    );
    expect(rows[0]).toEqual({ spans: expected, distinct_spans: expected, traces: REQUESTS });
  }, 180_000);
});
