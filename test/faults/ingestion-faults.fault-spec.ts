import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'nats';
import { type Tenant, bootstrap } from '../support/api';
import { Stack } from '../support/stack';
import { LoadGenerator, type LoadReport } from './load';
import { type PrivateNats, type PrivatePostgres, PrivateServices } from './services';

/** Spans acknowledged before a fault, while it lasts where the service can take them, and after it. */
const PROGRESS_SPANS = 400;
/** Each fault strikes twice: the second finds a service that has already recovered once. */
const ROUNDS = 2;
const SETTLE_TIMEOUT_MS = 60_000;
/** What the API may answer an ingestion under any of these faults: success, or 503 for what it could not store. */
const ALLOWED_STATUSES = ['200', '201', '503'];

interface Counts {
  sent: number;
  acknowledged: number;
  stored: number;
  duplicates: number;
  lost: number;
  /** Stored though never acknowledged: requests that reached the stream but whose answer never reached the client. */
  storedUnacknowledged: number;
  deadLettered: number;
  /** Spans the tenant's usage counters counted: each stored span once. */
  usageCounted: number;
  statuses: Record<string, number>;
}

const table = (results: Record<string, Counts>): string =>
  Object.entries(results)
    .map(([name, { statuses, ...c }]) => `${name.padEnd(17)} ${JSON.stringify(c)} answers ${JSON.stringify(statuses)}`)
    .join('\n');

describe('ingestion under faults (private nats-server and Postgres)', () => {
  let services: PrivateServices;
  let stack: Stack;
  const results: Record<string, Counts> = {};

  beforeAll(async () => {
    services = await PrivateServices.start();
    stack = await Stack.start({}, { name: 'faults', adminDbUrl: services.postgres.adminUrl, natsUrl: services.nats.url });
  }, 120_000);

  afterAll(async () => {
    await stack?.stopApps();
    await services?.dispose();
    process.stderr.write(`\nfault scenarios:\n${table(results)}\n`);
  }, 60_000);

  /** Resolves once the projector has nothing left to apply or to ack (the stored rows are final), with the dead-letter count. */
  async function settled(): Promise<number> {
    const nc = await connect({ servers: services.nats.url });
    try {
      const jsm = await nc.jetstreamManager();
      const deadline = Date.now() + SETTLE_TIMEOUT_MS;
      for (;;) {
        const info = await jsm.consumers.info(`${stack.streamPrefix}INGEST`, `${stack.streamPrefix}ingest-projector`);
        if (info.num_pending === 0 && info.num_ack_pending === 0) break;
        if (Date.now() > deadline) throw new Error(`the projector did not catch up: ${info.num_pending} pending, ${info.num_ack_pending} unacked`);
        await sleep(200);
      }
      return (await jsm.streams.info(`${stack.streamPrefix}DLQ`)).state.messages;
    } finally {
      await nc.close();
    }
  }

  /** The tenant's counted spans once the usage relay and projection have reached the stored count, or where they stopped. */
  async function usageCounted(tenant: Tenant, storedRows: number): Promise<number> {
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    for (;;) {
      const { rows } = await stack.db.query<{ spans: number }>('SELECT coalesce(sum(spans), 0)::int AS spans FROM usage_counters WHERE org_id = $1', [tenant.orgId]);
      if (rows[0].spans >= storedRows || Date.now() > deadline) return rows[0].spans;
      await sleep(200);
    }
  }

  async function countsOf(tenant: Tenant, report: LoadReport, deadLettered: number): Promise<Counts> {
    const { rows } = await stack.db.query<{ key: string; n: number }>(
      'SELECT coalesce(external_id, otel_span_id) AS key, count(*)::int AS n FROM spans WHERE project_id = $1 GROUP BY 1',
      [tenant.projectId],
    );
    const stored = new Map(rows.map((r) => [r.key, r.n]));
    const acknowledged = [...report.acknowledged];
    return {
      sent: report.sent,
      acknowledged: acknowledged.length,
      stored: acknowledged.filter((k) => stored.has(k)).length,
      duplicates: rows.reduce((sum, r) => sum + r.n - 1, 0),
      lost: acknowledged.filter((k) => !stored.has(k)).length,
      storedUnacknowledged: rows.filter((r) => !report.acknowledged.has(r.key)).length,
      deadLettered,
      usageCounted: await usageCounted(tenant, rows.length),
      statuses: report.statuses,
    };
  }

  /** Runs load around `fault`: the service takes load before it, recovers on its own, and takes load after, each round. */
  async function underLoad(name: string, fault: (load: LoadGenerator) => Promise<void>): Promise<Counts> {
    const tenant = await bootstrap(stack, `${name}@faults.test`, name, name, 'enterprise');
    const load = new LoadGenerator({ baseUrl: stack.baseUrl, apiKey: tenant.apiKey, prefix: name });
    load.start();
    let report: LoadReport;
    try {
      await load.progressed(PROGRESS_SPANS);
      for (let round = 0; round < ROUNDS; round++) {
        await fault(load);
        await load.progressed(PROGRESS_SPANS);
      }
    } finally {
      report = await load.stop();
    }
    results[name] = await countsOf(tenant, report, await settled());
    return results[name];
  }

  /** Stops a server and keeps it down until the API has refused a request with 503 for it, then starts it again. */
  async function outage(load: LoadGenerator, server: PrivateNats | PrivatePostgres, signal: NodeJS.Signals): Promise<void> {
    const before = load.answers('503');
    await server.stop(signal);
    try {
      const deadline = Date.now() + 30_000;
      while (load.answers('503') === before) {
        if (Date.now() > deadline) throw new Error('the API never answered 503 during the outage');
        await sleep(50);
      }
    } finally {
      await server.start();
    }
  }

  function expectExactlyOnce(counts: Counts): void {
    expect(counts).toMatchObject({ lost: 0, duplicates: 0, deadLettered: 0, stored: counts.acknowledged });
    expect(counts.usageCounted).toBe(counts.stored + counts.storedUnacknowledged);
  }

  it('kill -9 of the processor: the API keeps acknowledging, the restarted processor stores everything once', async () => {
    const counts = await underLoad('processor-kill', async (load) => {
      await stack.killProcessor('SIGKILL');
      await load.progressed(PROGRESS_SPANS);
      await stack.startProcessor();
    });
    expectExactlyOnce(counts);
    expect(Object.keys(counts.statuses)).toEqual(expect.arrayContaining(['200', '201']));
    expect(Object.keys(counts.statuses).filter((s) => !ALLOWED_STATUSES.includes(s))).toEqual([]);
  }, 120_000);

  it('nats-server killed and restarted: 503 while it is down, nothing acknowledged lost or doubled', async () => {
    const counts = await underLoad('nats-restart', (load) => outage(load, services.nats, 'SIGKILL'));
    expectExactlyOnce(counts);
    expect(Object.keys(counts.statuses).filter((s) => !ALLOWED_STATUSES.includes(s))).toEqual([]);
  }, 120_000);

  it('Postgres restarted (fast shutdown): 503 while it is down, nothing acknowledged lost or doubled', async () => {
    const counts = await underLoad('postgres-restart', (load) => outage(load, services.postgres, 'SIGINT'));
    expectExactlyOnce(counts);
    expect(Object.keys(counts.statuses).filter((s) => !ALLOWED_STATUSES.includes(s))).toEqual([]);
  }, 120_000);

  it('API killed mid-request: what it acknowledged is stored once, and retrying what it did not answer stores nothing twice', async () => {
    const counts = await underLoad('api-kill', async () => {
      await stack.killApi('SIGKILL');
      await stack.startApi();
    });
    expectExactlyOnce(counts);
    // Requests in flight get no answer at all (connection reset or refused); every answer given is allowed.
    const answers = Object.keys(counts.statuses).filter((s) => /^\d+$/.test(s));
    expect(answers.filter((s) => !ALLOWED_STATUSES.includes(s))).toEqual([]);
  }, 120_000);
});
