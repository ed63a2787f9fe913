import 'reflect-metadata';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { type NatsConnection, connect } from 'nats';
import { parseNatsServers } from '@app/config';
import { Client } from 'pg';
import { bootstrap } from '../test/support/api';
import { ROOT, Stack } from '../test/support/stack';
import { ProjectorWatch } from '../test/support/projector-watch';
import { measureFastifyParse } from './limits/fastify-parse';
import { measureJetStreamPublish } from './limits/jetstream-publish';
import { measurePostgresInsert } from './limits/postgres-insert';
import { nativePayload, otlpPayload } from './payloads';
import { renderReport } from './report';
import { type BenchResults, TARGETS, best, bound, fastestInsert, ratio, unnestInsert } from './results';
import { projectSpanRows, rowFailure } from './rows';
import { measureAcceptance } from './stages/acceptance';
import { measureBurst } from './stages/burst';
import { measureEndToEnd } from './stages/end-to-end';
import { measureProjection, projectionTargetOn } from './stages/projection';
import { measureRebuild } from './stages/rebuild';
import { measureRouteModel } from './stages/route-model';

/**
 * `npm run bench`: the machine's limits for our work, then the API, the projection and the
 * whole path measured against them, in one run on this machine's Postgres and NATS, with a
 * database and stream prefix of its own that are removed afterwards. Never starts, stops or
 * reconfigures the shared servers. docs/BENCHMARKS.md explains each figure.
 */

const CONCURRENCY = [1, 4, 16, 64];
const SECONDS_PER_LEVEL = 5;
const JETSTREAM_SECONDS = 4;
const BACKLOG_SPANS = 200_000;
const RAW_INSERT_ROWS = 100_000;
const END_TO_END_SECONDS = 20;
/** Issue 25's burst: the API loaded flat out for this long, the processor beside it; then how long until all of it is readable. */
const BURST_SECONDS = 10;
const BURST_TIMEOUT_S = 180;
/** Bounds on waiting for the processor, so the whole run stays within ten minutes. */
const DRAIN_TIMEOUT_MS = 60_000;
const PROJECTION_TIMEOUT_S = 150;
const RESULTS = resolve(ROOT, 'bench', 'results', 'latest.json');

const say = (line: string) => process.stderr.write(`bench: ${line}\n`);

/** One clear line when a service is missing, instead of a stack trace from deep inside. */
async function reachServices(adminDbUrl: string, natsUrl: string): Promise<{ nc: NatsConnection; postgres: string }> {
  const admin = new Client({ connectionString: adminDbUrl, connectionTimeoutMillis: 5_000 });
  let postgres: string;
  try {
    await admin.connect();
    postgres = ((await admin.query('SHOW server_version')).rows[0] as { server_version: string }).server_version;
  } catch (err) {
    throw new Error(
      `Postgres is not reachable at ${adminDbUrl} (${(err as Error).message}); the bench uses a running server and never starts one`,
    );
  } finally {
    await admin.end().catch(() => undefined);
  }
  try {
    return { nc: await connect({ servers: parseNatsServers(natsUrl).servers, timeout: 5_000 }), postgres };
  } catch (err) {
    throw new Error(`NATS is not reachable at ${natsUrl} (${(err as Error).message}); start nats-server -js`);
  }
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadAvgAtStart = loadavg()[0];
  const adminDbUrl = process.env.SPANLOG_TEST_ADMIN_DB_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const logLevel = process.env.LOG_LEVEL ?? 'warn';
  const { nc, postgres } = await reachServices(adminDbUrl, natsUrl);

  say('starting the API and the processor (own database and streams)');
  const stack = await Stack.start({ NODE_ENV: 'production', LOG_LEVEL: logLevel }, { name: 'bench', adminDbUrl, natsUrl });
  let stopped: Promise<void> | null = null;
  const cleanUp = () => (stopped ??= Promise.all([stack.stop(), nc.close()]).then(() => undefined));
  process.once('SIGINT', () => {
    say('interrupted: removing the bench database and streams');
    void cleanUp().finally(() => process.exit(130));
  });
  try {
    // Enterprise: 10,000 requests/s and no trace quota, so neither limit caps the figures.
    const tenant = await bootstrap(stack, 'bench@spanlog.test', 'Bench', 'bench', 'enterprise');
    const watch = new ProjectorWatch(await nc.jetstreamManager(), stack.streamPrefix);
    const otlp = otlpPayload();
    const native = nativePayload();
    const api = { baseUrl: stack.baseUrl, apiKey: tenant.apiKey, apiPid: stack.pid('api') };

    say('limits: bare Fastify parse');
    const fastifyParse = await measureFastifyParse(otlp, CONCURRENCY, SECONDS_PER_LEVEL);
    say('limits: JetStream async publish');
    const jetstreamPublish = await measureJetStreamPublish(nc, stack.streamPrefix, otlp, JETSTREAM_SECONDS);
    say('limits: Postgres multi-row inserts, lean and fat rows');
    const postgresInsert = await measurePostgresInsert(stack.db, otlp, tenant.projectId, RAW_INSERT_ROWS);

    // The projection runs before the acceptance series, on a database as fresh as the raw
    // insert's: those series leave hundreds of thousands of rows behind.
    say(`projection: draining a backlog of ${BACKLOG_SPANS.toLocaleString('en-US')} spans`);
    const projection = await measureProjection(
      projectionTargetOn(stack, natsUrl, tenant, watch),
      otlp,
      BACKLOG_SPANS,
      PROJECTION_TIMEOUT_S,
    );

    say('API acceptance: OTLP exports, processor running');
    const beforeOtlp = { at: performance.now(), rows: await projectSpanRows(stack.db, tenant.projectId) };
    const acceptOtlp = await measureAcceptance(api, otlp, CONCURRENCY, SECONDS_PER_LEVEL);
    // Rows the processor made visible meanwhile, sharing the machine with an API under full load:
    // the rate the whole pipeline can sustain here, lower than a drain with the machine to itself.
    const projectionUnderLoad =
      ((await projectSpanRows(stack.db, tenant.projectId)) - beforeOtlp.rows) / ((performance.now() - beforeOtlp.at) / 1_000);
    const purgedOtlp = await watch.purge();
    say('API acceptance: native batches, processor running');
    const acceptNative = await measureAcceptance(api, native, CONCURRENCY, SECONDS_PER_LEVEL);
    const purgedNative = await watch.purge();
    say('API acceptance: OTLP exports, processor paused');
    await stack.killProcessor();
    const acceptPaused = await measureAcceptance(api, otlp, CONCURRENCY, SECONDS_PER_LEVEL);
    const purgedPaused = await watch.purge();
    await stack.startProcessor();
    await watch.drained(DRAIN_TIMEOUT_MS);

    // The pipeline's maximum is what it sustains with the API and the processor sharing the
    // machine: above it the backlog grows for as long as the run lasts, and so would the latency
    // measured. A drain alone has the whole machine, so it overstates it.
    const bestOtlp = best(acceptOtlp);
    const pipelineMax = Math.min(bestOtlp.itemsPerS, projection.spansPerS, projectionUnderLoad);
    const basis = `50% of ${Math.round(pipelineMax).toLocaleString('en-US')} spans/s, the lowest of the best OTLP acceptance, the drain rate and the rate applied beside a fully loaded API`;
    say(`end to end at ${basis}`);
    const endToEnd = await measureEndToEnd(
      { ...api, projectId: tenant.projectId, db: stack.db, drained: () => watch.drained(DRAIN_TIMEOUT_MS) },
      otlp,
      pipelineMax / 2,
      bestOtlp.connections,
      END_TO_END_SECONDS,
    );
    await watch.drained(DRAIN_TIMEOUT_MS);
    say(`burst: ${BURST_SECONDS} s of OTLP exports as fast as the API answers, then until every acknowledged span is readable`);
    const burst = await measureBurst(
      { ...api, projectId: tenant.projectId, db: stack.db, drained: () => watch.drained(DRAIN_TIMEOUT_MS), watch },
      otlp,
      bestOtlp.connections,
      BURST_SECONDS,
      BURST_TIMEOUT_S,
    );
    await watch.drained(DRAIN_TIMEOUT_MS);
    say('rebuild: replaying INGEST into new tables');
    const rebuild = await measureRebuild(stack.env);
    say('route-model: a million spans of five models, their stats counted again, then 500 routes');
    const routeModel = await measureRouteModel(stack.db, stack.env, api, tenant.projectId);
    const failures = [
      rowFailure('3 projection', projection.rows),
      rowFailure('4 end to end', endToEnd.rows),
      rowFailure('4 burst', burst.rows),
    ].filter((f): f is string => f !== null);

    const results: BenchResults = {
      startedAt: startedAt.toISOString(),
      durationS: (Date.now() - startedAt.getTime()) / 1_000,
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
        memoryGb: Math.round(totalmem() / 2 ** 30),
        node: process.versions.node,
        nats: nc.info?.version ?? 'unknown',
        postgres,
        loadAvgAtStart,
        loadAvgAtEnd: loadavg()[0],
      },
      settings: {
        concurrency: CONCURRENCY,
        secondsPerLevel: SECONDS_PER_LEVEL,
        backlogSpans: BACKLOG_SPANS,
        endToEndSeconds: END_TO_END_SECONDS,
        burstSeconds: BURST_SECONDS,
        logLevel,
      },
      payload: { otlp: { spans: otlp.items, bytes: otlp.bytes }, native: { events: native.items, bytes: native.bytes } },
      limits: { fastifyParse, jetstreamPublish, postgresInsert },
      acceptance: {
        otlp: acceptOtlp,
        native: acceptNative,
        otlpProcessorPaused: acceptPaused,
        purged: { otlp: purgedOtlp, native: purgedNative, otlpProcessorPaused: purgedPaused },
      },
      projection: { ...projection, underLoadSpansPerS: projectionUnderLoad },
      endToEnd: { ...endToEnd, basis },
      burst,
      rebuild,
      routeModel,
      deadLettered: await watch.deadLettered(),
      failures,
      ratios: {
        acceptanceToFastify: ratio(bestOtlp.itemsPerS / best(fastifyParse).itemsPerS, TARGETS.acceptanceToFastify),
        acceptancePausedToFastify: ratio(best(acceptPaused).itemsPerS / best(fastifyParse).itemsPerS, TARGETS.acceptanceToFastify),
        rowsVisibleToLeanInsert: ratio(
          projection.spansPerS / fastestInsert(postgresInsert, 'lean').rowsPerS,
          TARGETS.rowsVisibleToLeanInsert,
        ),
        rowsVisibleToRawInsert: ratio(projection.spansPerS / fastestInsert(postgresInsert).rowsPerS, TARGETS.rowsVisibleToRawInsert),
        rowsVisibleToUnnestInsert: ratio(projection.spansPerS / unnestInsert(postgresInsert).rowsPerS, TARGETS.rowsVisibleToRawInsert),
      },
      bounds: {
        endToEndP99Ms: bound(endToEnd.p99Ms, TARGETS.endToEndP99Ms),
        burstVisibleS: bound(burst.visibleAfterS, TARGETS.burstVisibleS),
      },
    };
    // Written whole or not at all: an interrupted run leaves only a .tmp file (git-ignored).
    await mkdir(dirname(RESULTS), { recursive: true });
    await writeFile(`${RESULTS}.tmp`, `${JSON.stringify(results, null, 2)}\n`);
    await rename(`${RESULTS}.tmp`, RESULTS);
    process.stdout.write(`${renderReport(results)}\n\nbench: results in ${RESULTS}\n`);
    if (failures.length) throw new Error(`accepted spans missing or doubled in Postgres: ${failures.join('; ')}`);
  } finally {
    await cleanUp();
  }
}

main().catch((err: unknown) => {
  say(`failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
