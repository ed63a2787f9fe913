import 'reflect-metadata';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { connect } from 'nats';
import { parseNatsServers } from '@app/config';
import { type Tenant, bootstrap, data, login, mutate, setPlan } from '../test/support/api';
import { ROOT, Stack } from '../test/support/stack';
import { ProjectorWatch } from '../test/support/projector-watch';
import { type InsertFigures, measurePostgresInsert } from './limits/postgres-insert';
import { fastestInsert, unnestInsert } from './results';
import { otlpPayload } from './payloads';
import { checkRows, rowFailure } from './rows';
import { type ProjectionFigures, appendExports, measureProjection, projectionTargetOn } from './stages/projection';
import { type RebuildFigures, measureRebuild } from './stages/rebuild';
import { type BurstFigures, measureBurst } from './stages/burst';
import { measureRecompute } from './stages/recompute';
import { measureStatements } from './stages/statements';
import { type ExportFigures, measureExport, writeExportTraces } from './stages/export';
import { TARGETS as CEILING_TARGETS, measureCeiling } from './stages/ceiling';

/**
 * One stage of `npm run bench` on its own, for working on it (docs/BENCHMARKS.md, "One stage"):
 *
 * - `projection`: the raw Postgres inserts and the projection's drain, alternately, `--repeat`
 *   times in one run, each drain compared with the inserts measured just before it;
 * - `rebuild`: `--spans` spans (a million by default) appended to INGEST, then
 *   `spanlog rebuild telemetry` over them with the processor stopped;
 * - `statements`: each step of the live apply timed on its own, `--batches` batches
 *   (default 15) of 64 exports, and a model-stats recount after each;
 * - `recompute`: as `rebuild`, then a project price definition for the payload's model and
 *   the cost recomputation it starts, run to the end with the processor stopped;
 * - `burst`: `--repeat` times, 10 s of OTLP exports as fast as the API answers with the processor
 *   beside it, then until every acknowledged span is readable (issue 25);
 * - `export`: `--traces` traces (100,000 by default) of one span, then GET /api/v1/traces/export
 *   as JSONL, CSV and JSONL with spans and scores, each trace counted once, the API's peak RSS;
 * - `ceiling`: one project of `--spans` spans (ten million by default) in a tenth as many traces,
 *   written in SQL, then every read of it through the API and RPC, and a month's retention
 *   (issue 33, docs/BENCHMARKS.md "One machine's ceiling").
 *
 * Same stack, database and stream isolation as the full bench; results in
 * `bench/results/<stage>-latest.json`.
 */

/** The burst's load, as `npm run bench` runs it at its best OTLP level (16 connections on the machines measured). */
const BURST_CONNECTIONS = 16;
const BURST_SECONDS = 10;

const say = (line: string) => process.stderr.write(`bench: ${line}\n`);

interface Round {
  inserts: InsertFigures[];
  drain: ProjectionFigures;
  /** Rows visible per second over the fastest lean upsert of the same spans (the limit issue 25 measures against). */
  toLean: number;
  /** Rows visible per second over the fat `unnest` insert's rows per second (issue 14's measure). */
  toUnnest: number;
  /** The same over the fastest of the fat inserts. */
  toFastest: number;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');

async function writeResults(stage: string, results: object): Promise<string> {
  const file = resolve(ROOT, 'bench', 'results', `${stage}-latest.json`);
  await mkdir(resolve(ROOT, 'bench', 'results'), { recursive: true });
  await writeFile(`${file}.tmp`, `${JSON.stringify(results, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
  return file;
}

/**
 * The bench's tenant in a reused stack's database (`--reuse`): its one project, with a new key,
 * since the first run's key is stored only as a hash.
 */
async function benchTenantOf(stack: Stack): Promise<Tenant> {
  const session = await login(stack, 'bench@spanlog.test');
  const [project] = (await stack.db.query('SELECT id, org_id FROM projects ORDER BY created_at LIMIT 1')).rows as {
    id: string;
    org_id: string;
  }[];
  const key = data<{ id: string; apiKey: string }>(
    await mutate(stack, session.access_token, 'apiKey.create', { projectId: project.id, name: `bench ${new Date().toISOString()}` }),
  );
  // As bootstrap made it: no rate limit in the way of the reads (the first run may have ended on Pro, for its retention).
  await setPlan(stack, project.org_id, 'enterprise');
  return { userId: session.user.id, orgId: project.org_id, projectId: project.id, apiKey: key.apiKey, apiKeyId: key.id };
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      repeat: { type: 'string', default: '3' },
      spans: { type: 'string' },
      'cpu-prof': { type: 'string' },
      batches: { type: 'string', default: '15' },
      traces: { type: 'string', default: '100000' },
      keep: { type: 'boolean', default: false },
      reuse: { type: 'string' },
    },
  });
  const stage = positionals[0];
  if (!['projection', 'rebuild', 'statements', 'recompute', 'export', 'burst', 'ceiling'].includes(stage)) {
    throw new Error(
      'usage: npm run bench:stage -- projection|rebuild|statements|recompute|export|burst|ceiling [--repeat N] [--spans N] [--batches N] [--traces N] [--cpu-prof DIR] [--keep] [--reuse ID]',
    );
  }
  const adminDbUrl = process.env.SPANLOG_TEST_ADMIN_DB_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const startedAt = new Date();
  const loadAvgAtStart = loadavg()[0];
  // The processor's (and the rebuild CLI's) CPU profile, when asked for: written when it exits.
  const processorEnv = values['cpu-prof']
    ? { NODE_OPTIONS: `--require ${resolve(ROOT, 'bench', 'cpu-profile.cjs')}`, SPANLOG_BENCH_CPU_PROF_DIR: resolve(values['cpu-prof']) }
    : {};
  const stack = await Stack.start(
    { NODE_ENV: 'production', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
    { name: 'bench', adminDbUrl, natsUrl, reuseId: values.reuse },
  );
  const nc = await connect({ servers: parseNatsServers(natsUrl).servers });
  // --keep: the database and streams stay for a look afterwards (EXPLAIN on the ceiling's data); the apps stop either way.
  const cleanUp = () => Promise.all([values.keep ? stack.stopApps() : stack.stop(), nc.close()]);
  process.once('SIGINT', () => void cleanUp().finally(() => process.exit(130)));
  try {
    const tenant = values.reuse ? await benchTenantOf(stack) : await bootstrap(stack, 'bench@spanlog.test', 'Bench', 'bench', 'enterprise');
    const watch = new ProjectorWatch(await nc.jetstreamManager(), stack.streamPrefix);
    const otlp = otlpPayload();
    const conditions = () => ({
      startedAt: startedAt.toISOString(),
      durationS: (Date.now() - startedAt.getTime()) / 1_000,
      cpus: cpus().length,
      loadAvgAtStart,
      loadAvgAtEnd: loadavg()[0],
      node: process.versions.node,
    });

    if (stage === 'projection') {
      const spans = Number(values.spans ?? 200_000);
      const rounds: Round[] = [];
      for (let i = 0; i < Number(values.repeat); i++) {
        say(`round ${i + 1}: raw inserts of 100,000 rows, then a drain of ${int(spans)} spans`);
        const inserts = await measurePostgresInsert(stack.db, otlp, tenant.projectId, 100_000);
        const drain = await measureProjection(projectionTargetOn(stack, natsUrl, tenant, watch, processorEnv), otlp, spans, 300);
        if (drain.rows.missing || drain.rows.duplicates)
          throw new Error(`round ${i + 1}: ${drain.rows.missing} spans missing, ${drain.rows.duplicates} doubled`);
        const lean = fastestInsert(inserts, 'lean').rowsPerS;
        const unnest = unnestInsert(inserts).rowsPerS;
        const fastest = fastestInsert(inserts).rowsPerS;
        rounds.push({
          inserts,
          drain,
          toLean: drain.spansPerS / lean,
          toUnnest: drain.spansPerS / unnest,
          toFastest: drain.spansPerS / fastest,
        });
        say(
          `round ${i + 1}: ${int(drain.spansPerS)} rows visible/s; raw ${inserts.map((f) => `${f.shape} ${f.method} ${int(f.rowsPerS)} rows/s`).join(', ')}; ` +
            `ratio ${(drain.spansPerS / lean).toFixed(2)} to the lean limit; fat: ${(drain.spansPerS / unnest).toFixed(2)} to unnest, ${(drain.spansPerS / fastest).toFixed(2)} to the fastest`,
        );
      }
      await stack.killProcessor();
      const file = await writeResults('projection', { ...conditions(), rounds });
      process.stdout.write(`${file}\n`);
    } else if (stage === 'burst') {
      const bursts: BurstFigures[] = [];
      for (let i = 0; i < Number(values.repeat); i++) {
        const burst = await measureBurst(
          {
            baseUrl: stack.baseUrl,
            apiKey: tenant.apiKey,
            apiPid: stack.pid('api'),
            projectId: tenant.projectId,
            db: stack.db,
            drained: () => watch.drained(60_000),
            watch,
          },
          otlp,
          BURST_CONNECTIONS,
          BURST_SECONDS,
          180,
        );
        const failure = rowFailure('burst', burst.rows);
        if (failure) throw new Error(failure);
        say(
          `burst ${i + 1}: ${int(burst.load.itemsPerS)} spans/s accepted for ${BURST_SECONDS} s (${burst.load.failed} not 2xx); ${int(burst.visibleAtEnd)} of ${int(burst.acceptedSpans)} readable at its end, ` +
            `all ${burst.visibleAfterS?.toFixed(1) ?? 'never'} s later (last trace ${burst.lastTraceAfterS?.toFixed(1) ?? 'never'} s); ${int(burst.appliedSpansPerS)} rows/s`,
        );
        bursts.push(burst);
      }
      process.stdout.write(`${await writeResults('burst', { ...conditions(), bursts })}\n`);
    } else if (stage === 'export') {
      const traces = Number(values.traces);
      say(`writing ${int(traces)} traces`);
      await writeExportTraces(stack, tenant, traces, say);
      const exports: ExportFigures[] = [];
      for (const query of ['format=jsonl', 'format=csv', 'format=jsonl&include=spans,scores']) {
        const figures = await measureExport(stack, tenant, query, traces);
        say(
          `${query}: ${int(figures.traces)} traces once each, ${figures.megabytes.toFixed(1)} MB in ${figures.seconds.toFixed(1)} s; ` +
            `API RSS ${figures.apiRssBeforeMb?.toFixed(0)} MB before, ${figures.apiPeakRssMb?.toFixed(0)} MB at its peak`,
        );
        exports.push(figures);
      }
      process.stdout.write(`${await writeResults('export', { ...conditions(), traces, exports })}\n`);
    } else if (stage === 'ceiling') {
      // Nothing is ingested: the processor would only compete with the reads for the machine.
      await stack.killProcessor();
      const spans = Number(values.spans ?? 10_000_000);
      const ceiling = await measureCeiling(stack, tenant, 'bench@spanlog.test', values.reuse ? 'loaded' : spans, say);
      process.stdout.write(`${await writeResults('ceiling', { ...conditions(), targets: CEILING_TARGETS, ceiling })}\n`);
    } else if (stage === 'statements') {
      await stack.killProcessor();
      const statements = await measureStatements(stack.env.DATABASE_URL as string, otlp, tenant, Number(values.batches));
      for (const [step, ms] of Object.entries(statements))
        say(`${step}: ${step === 'batches' || step === 'spansPerBatch' ? ms : `${ms.toFixed(1)} ms per batch`}`);
      const file = await writeResults('statements', { ...conditions(), statements });
      process.stdout.write(`${file}\n`);
    } else {
      const spans = Number(values.spans ?? 1_000_000);
      await stack.killProcessor();
      say(`appending ${int(spans)} spans to INGEST (processor stopped)`);
      const requests = await appendExports({ natsUrl, prefix: stack.streamPrefix, tenant }, otlp, Math.ceil(spans / otlp.items));
      say('spanlog rebuild telemetry');
      // With --cpu-prof the CLI that rebuilds is profiled as the processor is.
      const rebuild: RebuildFigures = await measureRebuild({ ...stack.env, ...processorEnv });
      // The figure counts only if every appended span is a row a reader sees, once: the rebuild's own count is not the outcome.
      const rows = await checkRows(stack.db, tenant.projectId, otlp, requests);
      const failure = rowFailure('rebuild', rows);
      if (failure) throw new Error(failure);
      say(
        `${int(rebuild.spans)} spans, ${int(rebuild.messages)} messages in ${rebuild.seconds.toFixed(1)} s: ${int(rebuild.spansPerS)} spans/s, ${int(rebuild.messages / rebuild.seconds)} messages/s; ${int(rows.visible)} of ${int(rows.expected)} spans readable, each once`,
      );
      if (stage === 'recompute') {
        // The rows the rebuild wrote, priced by the built-in table, re-costed by a project definition.
        say('a project definition for gpt-4o-mini, its recomputation run to the end');
        const recompute = await measureRecompute(stack.env.DATABASE_URL as string, tenant.projectId);
        say(
          `${int(recompute.spans)} spans looked at, ${int(recompute.recosted)} re-costed in ${recompute.seconds.toFixed(1)} s: ${int(recompute.spansPerS)} spans/s`,
        );
        say(
          `a definition of a model no span has: ${int(recompute.unusedModel.spans)} spans looked at in ${recompute.unusedModel.seconds.toFixed(1)} s`,
        );
        process.stdout.write(`${await writeResults('recompute', { ...conditions(), recompute })}\n`);
        return;
      }
      const file = await writeResults('rebuild', {
        ...conditions(),
        rebuild: { ...rebuild, messagesPerS: rebuild.messages / rebuild.seconds },
        rows,
      });
      process.stdout.write(`${file}\n`);
    }
  } finally {
    await cleanUp();
    if (values.keep) say(`kept: ${stack.env.DATABASE_URL}, streams ${stack.streamPrefix}*`);
  }
}

main().catch((err: unknown) => {
  say(`failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
