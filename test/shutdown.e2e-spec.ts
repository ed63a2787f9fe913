import { nativeBatch } from './support/factories';
import { type Tenant, bootstrap } from './support/api';
import { NATIVE_TRACES, postWithKey } from './support/ingest';
import { type Stack, startStack } from './support/stack';

const REQUESTS = 40;

describe('graceful shutdown on SIGTERM (CONTRACT "Running it")', () => {
  let stack: Stack;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, 'shutdown@spanlog.test', 'Shutdown', 'shutdown', 'enterprise');
  }, 120_000);

  afterAll(() => stack?.stop());

  const ingest = (i: number) =>
    postWithKey(stack, tenant.apiKey, NATIVE_TRACES, nativeBatch(1, 20, `shutdown-${i}`)).then(
      async (res) => ({ i, status: res.status, seq: res.headers.get('spanlog-seq') }),
      () => ({ i, status: 0, seq: null }),
    );

  it('the API answers what it took in, then exits 0; the processor commits what it holds, then exits 0; nothing answered 2xx is lost', async () => {
    const answers = Promise.all(Array.from({ length: REQUESTS }, (_, i) => ingest(i)));
    // SIGTERM while requests are in flight and the processor is working through them.
    const [apiExit, processorExit] = await Promise.all([stack.killApi('SIGTERM'), stack.killProcessor('SIGTERM')]);
    expect(apiExit).toBe(0);
    expect(processorExit).toBe(0);

    const results = await answers;
    // A request the API took in is answered, never cut off with a 5xx; one that came too late was refused at connect (0).
    expect(results.every((r) => r.status === 201 || r.status === 0)).toBe(true);
    const accepted = results.filter((r) => r.status === 201);

    await stack.startProcessor();
    await stack.startApi();
    // Every accepted write is visible once a read given its token answers (tokens are sealed, so none can be picked as the last).
    for (const seq of new Set(accepted.map((r) => r.seq as string))) {
      const read = await fetch(`${stack.baseUrl}/api/v1/traces?limit=1&minSeq=${seq}`, {
        headers: { authorization: `Bearer ${tenant.apiKey}` },
      });
      expect(read.status).toBe(200);
    }
    const { rows } = await stack.db.query(`SELECT split_part(external_id, '-', 2)::int AS i, count(*)::int AS spans FROM spans GROUP BY 1`);
    const stored = new Map(rows.map((r: { i: number; spans: number }) => [r.i, r.spans]));
    for (const { i } of accepted) expect([i, stored.get(i)]).toEqual([i, 20]);
  });
});
