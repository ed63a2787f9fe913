import { setTimeout as sleep } from 'node:timers/promises';
import { bootstrap } from './support/api';
import { nativeBatch } from './support/factories';
import { NATIVE_TRACES, ingest } from './support/ingest';
import { type Stack, startStack } from './support/stack';

// Many more messages than one fetch (64), so the kill lands with a backlog still to project.
const REQUESTS = 600;
const SPANS_PER_REQUEST = 20;

describe('processor killed in the middle of a backlog', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    stack = await startStack();
    key = (await bootstrap(stack, 'kill@spanlog.test', 'Kill', 'kill', 'enterprise')).apiKey;
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
      lastSeq = await ingest(stack, key, NATIVE_TRACES, nativeBatch(1, SPANS_PER_REQUEST, `kill-${i}`));
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
