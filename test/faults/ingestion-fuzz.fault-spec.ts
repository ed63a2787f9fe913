import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { connect } from 'nats';
import { type Tenant, bootstrap } from '../support/api';
import { Stack } from '../support/stack';
import { type Endpoint, PATHS, badInput, validRequest } from './bad-inputs';
import { sendFuzz } from './fuzz-client';
import { PrivateServices } from './services';

const RUNS_PER_ENDPOINT = 500;
const VISIBLE_TIMEOUT_MS = 60_000;

describe('ingestion fuzz: the bad inputs of BAD_INPUTS.md on both endpoints', () => {
  let services: PrivateServices;
  let stack: Stack;
  let tenant: Tenant;
  let seq = 0;
  /** Answers per endpoint and class: `{ "otlp 3 prototype keys": { "400": 12 } }`. */
  const seen: Record<string, Record<number, number>> = {};

  beforeAll(async () => {
    services = await PrivateServices.start();
    stack = await Stack.start({}, { name: 'fuzz', adminDbUrl: services.postgres.adminUrl, natsUrl: services.nats.url });
    tenant = await bootstrap(stack, 'fuzz@faults.test', 'Fuzz', 'fuzz', 'enterprise');
  }, 120_000);

  afterAll(async () => {
    await stack?.stopApps();
    await services?.dispose();
    const lines = Object.entries(seen)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([label, statuses]) => `${label.padEnd(42)} ${JSON.stringify(statuses)}`);
    process.stderr.write(`\nfuzz answers:\n${lines.join('\n')}\n`);
  }, 60_000);

  it.each<Endpoint>(['native', 'otlp'])(
    '%s: every bad input is stored or refused with its documented 4xx, never a 5xx',
    async (endpoint) => {
      await fc.assert(
        fc.asyncProperty(badInput(endpoint), async (fuzzCase) => {
          const status = await sendFuzz(stack.baseUrl, tenant.apiKey, fuzzCase.build(`fuzz-${endpoint}-${seq++}`));
          const label = `${endpoint} ${fuzzCase.label}`;
          seen[label] ??= {};
          seen[label][status] = (seen[label][status] ?? 0) + 1;
          // fast-check reports the failing case (its `detail` says what was sent).
          expect(fuzzCase.allowed).toContain(status);
        }),
        { numRuns: RUNS_PER_ENDPOINT },
      );
    },
    180_000,
  );

  /** Posts a valid request and reads it back with read-your-writes: the projector is neither stuck nor dead. */
  async function becomesVisible(endpoint: Endpoint): Promise<void> {
    const request = validRequest(endpoint, `after-fuzz-${endpoint}`);
    const res = await fetch(`${stack.baseUrl}${PATHS[endpoint]}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.apiKey}`, ...request.headers },
      body: request.body,
    });
    expect(res.status).toBe(endpoint === 'native' ? 201 : 200);
    const token = res.headers.get('spanlog-seq') as string;
    const deadline = Date.now() + VISIBLE_TIMEOUT_MS;
    for (;;) {
      // The read itself waits up to 10 s for the ack floor, then answers 503 NOT_YET_VISIBLE.
      const read = await fetch(`${stack.baseUrl}/api/v1/traces?limit=1&minSeq=${token}`, {
        headers: { authorization: `Bearer ${tenant.apiKey}` },
      });
      await read.arrayBuffer();
      if (read.status === 200) return;
      expect(read.status).toBe(503);
      if (Date.now() > deadline) throw new Error(`a valid ${endpoint} request did not become visible within ${VISIBLE_TIMEOUT_MS} ms`);
      await sleep(100);
    }
  }

  it('keeps answering and consuming afterwards: valid requests become visible, nothing accepted was dead-lettered', async () => {
    expect(stack.pid('api')).not.toBeNull();
    expect(stack.pid('processor')).not.toBeNull();
    expect((await fetch(`${stack.baseUrl}/api/v1/health`)).status).toBe(200);
    await becomesVisible('native');
    await becomesVisible('otlp');
    const nc = await connect({ servers: services.nats.url });
    try {
      const dlq = await (await nc.jetstreamManager()).streams.info(`${stack.streamPrefix}DLQ`);
      // A 2xx means stored: a message the API accepted and the processor refused would break that.
      expect(dlq.state.messages).toBe(0);
    } finally {
      await nc.close();
    }
  }, 180_000);
});
