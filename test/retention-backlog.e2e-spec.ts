import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { attrs, exportOf, span } from '@app/otlp/testing/otlp-builders';
import { type Tenant, bootstrap, eventually } from './support/api';
import { smallBatch } from './support/factories';
import { NATIVE_TRACES, OTLP_TRACES, ingest } from './support/ingest';
import { type Stack, runCli, startStack } from './support/stack';

const DAY_MS = 86_400_000;
/** 50,000 spans: the drain takes seconds, long enough for the retention run to fall inside it. */
const EXPORTS = 500;
const SPANS_PER_EXPORT = 100;
const CLIENTS = 16;

const hex = (text: string, length: number) => createHash('sha256').update(text).digest('hex').slice(0, length);

/**
 * Issue 12: a retention run during a backlog made the projector skip every pending message
 * (nats-server 2.9 moves every consumer on a filtered purge). The outcome is measured as rows
 * a client can read, never as the consumer's ack floor.
 */
describe('a retention run while a backlog drains', () => {
  let stack: Stack;
  let loaded: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    stack = await startStack();
    loaded = await bootstrap(stack, 'loaded@spanlog.test', 'Loaded', 'p', 'pro');
    other = await bootstrap(stack, 'other@spanlog.test', 'Other', 'p', 'free');
  }, 120_000);

  afterAll(() => stack?.stop());

  const spanRows = async (projectId: string): Promise<{ spans: number; distinct: number }> =>
    (
      await stack.db.query(
        'SELECT count(*)::int AS spans, count(DISTINCT otel_span_id)::int AS distinct FROM spans WHERE project_id = $1 AND otel_span_id IS NOT NULL',
        [projectId],
      )
    ).rows[0];

  it('leaves every acknowledged span of the backlog stored exactly once, and removes only the expired requests', async () => {
    // Expired data of both organizations, received before the cutoff the run will use.
    await ingest(stack, loaded.apiKey, NATIVE_TRACES, smallBatch('old-loaded'));
    await ingest(stack, other.apiKey, NATIVE_TRACES, smallBatch('old-other'));
    await eventually(
      async () => (await stack.db.query('SELECT count(*)::int AS n FROM traces')).rows[0].n,
      (n) => n === 2,
    );
    await sleep(1_500);
    const cutoff = Date.now();
    await sleep(1_500);

    await stack.killProcessor('SIGTERM');
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < EXPORTS) {
          const n = next++;
          const traceId = hex(`backlog-${n}`, 32);
          const spanIds = Array.from({ length: SPANS_PER_EXPORT }, (_, s) => hex(`backlog-${n}-${s}`, 16));
          await ingest(
            stack,
            loaded.apiKey,
            OTLP_TRACES,
            exportOf(
              spanIds.map((spanId, s) =>
                span({ traceId, spanId, parentSpanId: s === 0 ? '' : spanIds[0], name: `step ${s}`, attributes: attrs({ n: s }) }),
              ),
            ),
          );
        }
      }),
    );

    await stack.startProcessor();
    // The drain has begun, and most of the backlog is still pending.
    await eventually(
      () => spanRows(loaded.projectId),
      (r) => r.spans > 0,
      60_000,
    );
    const run = await runCli(['admin', 'retention', 'run', '--now', new Date(cutoff + 30 * DAY_MS).toISOString(), '--json'], stack.env);
    expect(run).toMatchObject({ code: 0 });
    const removed = Object.fromEntries(
      (JSON.parse(run.stdout) as { organizations: { orgId: string; traces: number; removedMessages: number }[] }).organizations.map((o) => [
        o.orgId,
        o,
      ]),
    );
    expect(removed[loaded.orgId]).toMatchObject({ traces: 1, removedMessages: 1 });
    expect(removed[other.orgId]).toMatchObject({ traces: 1, removedMessages: 1 });

    const total = EXPORTS * SPANS_PER_EXPORT;
    const stored = await eventually(
      () => spanRows(loaded.projectId),
      (r) => r.spans >= total,
      240_000,
    );
    expect(stored).toEqual({ spans: total, distinct: total });
    const expired = (await stack.db.query(`SELECT count(*)::int AS n FROM traces WHERE external_id IN ('old-loaded', 'old-other')`)).rows[0]
      .n;
    expect(expired).toBe(0);
    const deadLettered = await runCli(['verify', '--json'], stack.env);
    expect(deadLettered).toMatchObject({ code: 0 });
  }, 600_000);
});
