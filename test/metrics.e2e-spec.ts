import { randomBytes } from 'node:crypto';
import { type Sample, sampleOf } from '@app/metrics/testing/prometheus-text';
import { exportOf, span } from '@app/otlp/testing/otlp-builders';
import { type Tenant, bootstrap, data, eventually, login, mutate } from './support/api';
import { nativeBatch } from './support/factories';
import { NATIVE_TRACES, OTLP_TRACES, SCORES as SCORES_PATH, ingest, traceStatus } from './support/ingest';
import { type Families, metricValue as value, scrapeMetrics as scrape } from './support/metrics';
import { Stack } from './support/stack';

/** Native: 3 traces of 4 spans (15 events, 12 spans); OTLP: 5 spans; scores: 2. */
const NATIVE = { traces: 3, spansPerTrace: 4 };
const OTLP_SPANS = 5;
const SCORES = 2;
/** The projections read from a stream, each with a lag in messages. */
const STREAM_PROJECTIONS = ['telemetry', 'usage', 'audit'];

describe('GET /metrics (API and processor)', () => {
  let stack: Stack;
  let tenant: Tenant;
  let traceId: string;

  const api = () => scrape(`${stack.baseUrl}/metrics`);
  const processor = () => scrape(stack.processorMetricsUrl);
  const samples = (families: Families, name: string): Sample[] =>
    [...families.values()].flatMap((f) => f.samples).filter((s) => s.name === name);

  beforeAll(async () => {
    // Info, so that the request log can be checked for scrapes; a verification round every second.
    stack = await Stack.start({ LOG_LEVEL: 'info', SPANLOG_VERIFY_INTERVAL_MS: '1000' }, { name: 'metrics', keepOutput: true });
    tenant = await bootstrap(stack, 'metrics@spanlog.test', 'Metrics', 'p', 'team');
    // One audit event (user.login) for the audit projection to apply.
    await login(stack, 'metrics@spanlog.test');
    const native = nativeBatch(NATIVE.traces, NATIVE.spansPerTrace);
    traceId = native.batch[0].body.id as string;
    await ingest(stack, tenant.apiKey, NATIVE_TRACES, native);
    const hex = randomBytes(16).toString('hex');
    const spans = Array.from({ length: OTLP_SPANS }, (_, i) =>
      span({ traceId: hex, spanId: randomBytes(8).toString('hex'), parentSpanId: '', name: `otlp ${i}` }),
    );
    await ingest(stack, tenant.apiKey, OTLP_TRACES, exportOf(spans));
    const seq = await ingest(stack, tenant.apiKey, SCORES_PATH, {
      scores: Array.from({ length: SCORES }, (_, i) => ({ traceId, name: `quality ${i}`, value: i })),
    });
    expect(await traceStatus(stack, tenant.apiKey, traceId, seq)).toBe(200);
  }, 120_000);

  afterAll(() => stack?.stop());

  it('API: serves the Prometheus text format to anyone, without rate limiting, and names everything spanlog_*', async () => {
    const { res, families } = await api();
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
    expect([...families.keys()].filter((name) => !name.startsWith('spanlog_'))).toEqual([]);
    // The Node.js process metrics, under the prefix too.
    expect(value(families, 'spanlog_process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(value(families, 'spanlog_process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(families.get('spanlog_nodejs_eventloop_lag_seconds')?.type).toBe('gauge');
    // What only the processor moves is not shown here.
    expect(families.has('spanlog_dead_letters_total')).toBe(false);
  });

  it('API: counts exactly what the ingestion endpoints accepted, per endpoint kind', async () => {
    const { families } = await api();
    expect(value(families, 'spanlog_ingest_accepted_events_total', { kind: 'batch' })).toBe(NATIVE.traces * (1 + NATIVE.spansPerTrace));
    expect(value(families, 'spanlog_ingest_accepted_spans_total', { kind: 'batch' })).toBe(NATIVE.traces * NATIVE.spansPerTrace);
    expect(value(families, 'spanlog_ingest_accepted_events_total', { kind: 'otel' })).toBe(OTLP_SPANS);
    expect(value(families, 'spanlog_ingest_accepted_spans_total', { kind: 'otel' })).toBe(OTLP_SPANS);
    expect(value(families, 'spanlog_ingest_accepted_events_total', { kind: 'scores' })).toBe(SCORES);
    // One message per request here, each timed from publish to acknowledgement.
    expect(value(families, 'spanlog_nats_publish_duration_seconds_count', { outcome: 'acked' })).toBe(3);
    expect(value(families, 'spanlog_nats_publish_duration_seconds_sum', { outcome: 'acked' })).toBeGreaterThan(0);
  });

  it('API: counts and times requests by route pattern and status, never by URL, and leaves scrapes out of the request log', async () => {
    const { families } = await api();
    const requests = (route: string, method: string, status: string) =>
      value(families, 'spanlog_http_requests_total', { route, method, status });
    expect(requests('/api/v1/traces', 'POST', '201')).toBe(1);
    expect(requests('/api/v1/otel/traces', 'POST', '200')).toBe(1);
    expect(requests('/api/v1/scores', 'POST', '201')).toBe(1);
    expect(requests('/api/v1/traces/:id', 'GET', '200')).toBe(1);
    expect(requests('/api/v1/health', 'GET', '200')).toBeGreaterThanOrEqual(1);
    const timed = value(families, 'spanlog_http_request_duration_seconds_count', {
      route: '/api/v1/traces',
      method: 'POST',
      status: '201',
    });
    expect(timed).toBe(1);
    expect(
      value(families, 'spanlog_http_request_duration_seconds_sum', { route: '/api/v1/traces', method: 'POST', status: '201' }),
    ).toBeGreaterThan(0);
    const routes = new Set(samples(families, 'spanlog_http_requests_total').map((s) => s.labels.route));
    expect([...routes].filter((route) => route.includes(traceId) || route.includes('?'))).toEqual([]);

    const log = stack.recentOutput('api');
    expect(log).toMatch(/"url":"\/api\/v1\/traces"/);
    expect(log).not.toMatch(/"url":"\/metrics"/);
  });

  it("processor: every projection's lag (telemetry by its watermark, usage and audit by acks, model stats in marked buckets) and every consumer backlog reach 0 after the drain", async () => {
    const lagOf = (families: Families, projection: string) => value(families, 'spanlog_projection_lag_messages', { projection });
    // Usage is published by the telemetry projection's outbox relay after its commit: drained once it has been applied too.
    const drained = await eventually(
      processor,
      ({ families: f }) =>
        (value(f, 'spanlog_projection_applied_events_total', { projection: 'usage' }) ?? 0) > 0 &&
        STREAM_PROJECTIONS.every((p) => lagOf(f, p) === 0) &&
        value(f, 'spanlog_projection_lag_buckets', { projection: 'model-stats' }) === 0,
    );
    const { families } = drained;
    expect(families.get('spanlog_projection_lag_messages')?.type).toBe('gauge');
    expect(families.get('spanlog_projection_lag_buckets')?.type).toBe('gauge');
    for (const consumer of ['ingest-projector', 'usage-projector', 'audit-projector', 'evaluation-worker']) {
      expect(value(families, 'spanlog_consumer_pending_messages', { consumer })).toBe(0);
    }
    // The API's health reports the same lags.
    const health = (await (await fetch(`${stack.baseUrl}/api/v1/health`)).json()) as { projections: Record<string, { lag: number }> };
    expect(health.projections).toEqual({ telemetry: { lag: 0 }, usage: { lag: 0 }, audit: { lag: 0 } });
  });

  it('processor: counts the messages and spans applied, and no dead letter, evaluation or retention yet', async () => {
    const { families } = await processor();
    expect([...families.keys()].filter((name) => !name.startsWith('spanlog_'))).toEqual([]);
    expect(value(families, 'spanlog_process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(value(families, 'spanlog_consumer_applied_messages_total', { consumer: 'ingest-projector' })).toBe(3);
    expect(value(families, 'spanlog_projection_applied_spans_total', { projection: 'telemetry' })).toBe(
      NATIVE.traces * NATIVE.spansPerTrace + OTLP_SPANS,
    );
    // Telemetry's events are the stored requests; usage applies the counts of the rows they created (how many depends on batching), audit the login.
    expect(value(families, 'spanlog_projection_applied_events_total', { projection: 'telemetry' })).toBe(3);
    expect(value(families, 'spanlog_projection_applied_events_total', { projection: 'usage' })).toBeGreaterThan(0);
    expect(value(families, 'spanlog_projection_applied_events_total', { projection: 'audit' })).toBe(1);
    expect(value(families, 'spanlog_projection_recounted_buckets_total', { projection: 'model-stats' })).toBeGreaterThan(0);
    const deadLetters = samples(families, 'spanlog_dead_letters_total');
    expect(deadLetters.map((s) => s.labels.consumer).sort()).toEqual([
      'audit-projector',
      'evaluation-worker',
      'ingest-projector',
      'usage-projector',
    ]);
    expect(deadLetters.every((s) => s.value === 0)).toBe(true);
    for (const outcome of ['pass', 'fail', 'error', 'skipped'])
      expect(value(families, 'spanlog_evaluator_calls_total', { outcome })).toBe(0);
    for (const outcome of ['finished', 'skipped', 'failed']) expect(value(families, 'spanlog_retention_runs_total', { outcome })).toBe(0);
    for (const kind of ['traces', 'spans', 'scores', 'messages'])
      expect(value(families, 'spanlog_retention_deleted_total', { kind })).toBe(0);
    expect(families.get('spanlog_nats_publish_duration_seconds')?.type).toBe('histogram');
  });

  it('processor: the scheduled verification finds the applied requests clean', async () => {
    const { families } = await eventually(
      processor,
      ({ families: f }) => (value(f, 'spanlog_verify_rounds_total', { outcome: 'clean' }) ?? 0) >= 1,
    );
    expect(value(families, 'spanlog_verify_rounds_total', { outcome: 'mismatch' })).toBe(0);
    expect(value(families, 'spanlog_verify_rounds_total', { outcome: 'failed' })).toBe(0);
    expect(samples(families, 'spanlog_verify_mismatches_total').map((s) => s.value)).toEqual([0, 0, 0, 0, 0]);
  });

  it('processor: counts a dead-lettered message by stream and consumer, and serves nothing but /metrics', async () => {
    const nc = await stack.connectNats();
    try {
      // No envelope headers: the projection can never read it.
      await nc.jetstream().publish(`${stack.streamPrefix}ingest.${tenant.orgId}.${tenant.projectId}.batch`, new TextEncoder().encode('{}'));
    } finally {
      await nc.close();
    }
    const { families } = await eventually(
      processor,
      ({ families: f }) => value(f, 'spanlog_dead_letters_total', { consumer: 'ingest-projector' }) === 1,
    );
    expect(sampleOf(families, 'spanlog_dead_letters_total', { consumer: 'ingest-projector' })?.labels.stream).toBe(
      `${stack.streamPrefix}INGEST`,
    );
    // Dead-lettered is handled: the lag does not wait for it.
    await eventually(processor, ({ families: f }) => value(f, 'spanlog_projection_lag_messages', { projection: 'telemetry' }) === 0);

    expect((await fetch(stack.processorMetricsUrl.replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(stack.processorMetricsUrl, { method: 'POST' })).status).toBe(404);
  });

  // Last: creating a monitor is audited, which the counts above do not expect.
  it('processor: shows monitors as counts by state and their oldest evaluation, with no project or monitor id in any label', async () => {
    const { access_token: token } = await login(stack, 'metrics@spanlog.test');
    data(
      await mutate(stack, token, 'monitor.create', {
        projectId: tenant.projectId,
        name: 'errors',
        metric: 'error_rate',
        windowSeconds: 600,
        comparison: '>',
        threshold: 0.1,
      }),
    );
    const { families } = await processor();
    // Not evaluated yet (a round is a minute away): pending, as old as the monitor.
    expect(value(families, 'spanlog_monitors', { state: 'PENDING' })).toBe(1);
    for (const state of ['OK', 'ALERT', 'NO_DATA']) expect(value(families, 'spanlog_monitors', { state })).toBe(0);
    expect(value(families, 'spanlog_monitor_evaluation_age_max_seconds')).toBeLessThan(60);
    const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
    const labelled = (f: Families) =>
      [...f.values()].flatMap((family) => family.samples).filter((sample) => Object.values(sample.labels).some((v) => uuid.test(v)));
    expect(labelled(families)).toEqual([]);
    expect(labelled((await api()).families)).toEqual([]);
  });
});
