import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { loadConfig } from '@app/config';
import { assertSchemaCurrent } from '@app/persistence';
import {
  LiveTablesBusyError,
  REBUILDABLE_PROJECTIONS,
  RebuildBusyError,
  type RebuildTick,
  type RebuildableProjection,
} from '@app/projections';
import { withDatabase } from '../database';
import { withEventLog } from '../event-log';
import { CliError, printResult } from '../output';
import { REBUILD_BAR_FORMAT } from '../progress-format';

const NAMES = REBUILDABLE_PROJECTIONS.map((p) => p.name);

/** The projections asked for, in rebuild order (REBUILDABLE_PROJECTIONS: model stats after the telemetry they are counted from). */
function chosen(args: string[]): RebuildableProjection[] {
  if (!args.length || args.includes('all')) return [...REBUILDABLE_PROJECTIONS];
  const unknown = args.filter((a) => !NAMES.includes(a));
  if (unknown.length) throw new CliError(`unknown projection ${unknown.join(', ')}: choose from ${NAMES.join(', ')} or all`);
  return REBUILDABLE_PROJECTIONS.filter((p) => args.includes(p.name));
}

/**
 * A bar on stderr with the rate and the time left; plain lines now and then when stderr is no
 * terminal. The rate is what the rebuild processed over the time since it began.
 */
function progressBar(): { begin(): void; tick(t: RebuildTick): void; stop(): void } {
  const bar = new SingleBar(
    {
      stream: process.stderr,
      ...REBUILD_BAR_FORMAT,
      noTTYOutput: true,
      notTTYSchedule: 5_000,
      hideCursor: true,
      etaBuffer: 50,
    },
    undefined,
  );
  let shown = false;
  let began = 0;
  const stop = () => {
    if (shown) bar.stop();
    shown = false;
  };
  return {
    begin() {
      stop();
      began = Date.now();
    },
    tick(t) {
      const total = Math.max(t.total, t.done, 1);
      const seconds = (Date.now() - began) / 1_000;
      const values = { projection: t.projection, phase: t.phase, speed: seconds > 0 ? Math.round(t.processed / seconds) : 0 };
      if (!shown) {
        shown = true;
        bar.start(total, t.done, values);
      }
      bar.setTotal(total);
      bar.update(t.done, values);
    },
    stop,
  };
}

function describe(r: Record<string, unknown>): string {
  const seconds = `${(Number(r.durationMs) / 1000).toFixed(1)} s`;
  if (r.projection === 'model-stats')
    return `rebuilt model-stats@${String(r.version)}: ${String(r.buckets)} hours of model stats counted again from the rows in ${seconds}`;
  const rows = r.rows
    ? Object.entries(r.rows as Record<string, number>).map(([table, n]) => `${n} rows of ${table}`)
    : [`${String(r.traces)} traces`, `${String(r.spans)} spans`, `${String(r.scores)} scores`];
  return [
    `rebuilt ${String(r.projection)}@${String(r.version)} from ${String(r.stream)} to sequence ${String(r.lastSeq)} in ${seconds}`,
    `${String(r.messages)} messages (${String(r.skipped)} skipped${Number(r.workers) > 0 ? `, decoded in ${String(r.workers)} worker threads` : ''}): ${rows.join(', ')}`,
  ].join('\n');
}

export function registerRebuildCommand(program: Command): void {
  program
    .command('rebuild')
    .argument('[projections...]', `${NAMES.join(', ')} or all (the default)`)
    .description(
      'rebuild projections beside the live tables while they serve, and swap them in: telemetry from INGEST, usage from USAGE, audit from AUDIT, model-stats counted again from the rows (operator: DATABASE_URL / NATS_URL)',
    )
    .option('--projection <name>', 'one projection (the same as naming it)')
    .option('--json', 'print JSON')
    .action(async (args: string[], opts: { projection?: string; json?: boolean }) => {
      const projections = chosen(opts.projection ? [...args, opts.projection] : args);
      const progress = progressBar();
      const workers = { workers: loadConfig().rebuildWorkers, warn: (message: string) => process.stderr.write(`spanlog: ${message}\n`) };
      const results = await withEventLog((nats) =>
        withDatabase(async (ds) => {
          await assertSchemaCurrent(ds);
          const done: Record<string, unknown>[] = [];
          try {
            for (const projection of projections) {
              progress.begin();
              done.push(await projection.rebuild(ds, nats, (t) => progress.tick(t), workers));
            }
          } catch (err) {
            if (err instanceof RebuildBusyError) throw new CliError(err.message);
            if (err instanceof LiveTablesBusyError)
              throw new CliError(`${err.message}, so the rebuild was not swapped in and nothing changed; run it again`);
            throw err;
          } finally {
            progress.stop();
          }
          return done;
        }),
      );
      const result = results.length === 1 ? results[0] : { projections: results };
      printResult(result, !!opts.json, () => results.map(describe).join('\n'));
    });
}
