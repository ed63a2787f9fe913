import type { Command } from 'commander';
import { LiveTablesBusyError, assertSchemaCurrent } from '@app/persistence';
import { type RebuildProgress, RebuildBusyError, rebuildModelStats, rebuildTelemetry } from '@app/projections';
import { withDatabase } from '../database';
import { withEventLog } from '../event-log';
import { CliError, printResult } from '../output';

const PROJECTIONS = ['telemetry', 'model-stats'] as const;
const PROGRESS_EVERY_MS = 2_000;

/** A line on stderr now and then, so an operator watching a long replay sees it move. */
function progressReporter(): (p: RebuildProgress) => void {
  let last = 0;
  let lastPhase = '';
  return (p) => {
    const now = Date.now();
    if (p.phase === lastPhase && now - last < PROGRESS_EVERY_MS) return;
    last = now;
    lastPhase = p.phase;
    process.stderr.write(`rebuild: ${p.phase}, sequence ${p.seq} of ${p.targetSeq}, ${p.messages} messages applied\n`);
  };
}

export function registerRebuildCommand(program: Command): void {
  program
    .command('rebuild')
    .description('rebuild a projection: telemetry from its stream into new tables swapped in (then model-stats counted again); model-stats from the rows (operator: DATABASE_URL / NATS_URL)')
    .option('--projection <name>', `one of ${PROJECTIONS.join(', ')}`, 'telemetry')
    .option('--json', 'print JSON')
    .action(async (opts: { projection: string; json?: boolean }) => {
      if (!(PROJECTIONS as readonly string[]).includes(opts.projection)) throw new CliError(`--projection must be one of ${PROJECTIONS.join(', ')}`);
      if (opts.projection === 'model-stats') {
        const stats = await withDatabase(async (ds) => {
          await assertSchemaCurrent(ds);
          return rebuildModelStats(ds, (buckets) => process.stderr.write(`rebuild: model-stats, ${buckets} buckets recounted\n`));
        });
        printResult(stats, !!opts.json, () => `rebuilt model-stats: ${stats.buckets} buckets recounted from the rows in ${(stats.durationMs / 1000).toFixed(1)} s`);
        return;
      }
      const result = await withEventLog((nats) =>
        withDatabase(async (ds) => {
          await assertSchemaCurrent(ds);
          try {
            return await rebuildTelemetry(ds, nats, {
              onProgress: progressReporter(),
              onSkipped: (seq, reason) => process.stderr.write(`rebuild: skipped sequence ${seq}: ${reason}\n`),
            });
          } catch (err) {
            if (err instanceof RebuildBusyError) throw new CliError(err.message);
            if (err instanceof LiveTablesBusyError) throw new CliError(`${err.message}, so the rebuild was not swapped in and nothing changed; run it again`);
            throw err;
          }
        }),
      );
      printResult(result, !!opts.json, () =>
        [
          `rebuilt ${result.projection}@${result.version} from ${result.stream} to sequence ${result.lastSeq} in ${(result.durationMs / 1000).toFixed(1)} s`,
          `${result.messages} messages (${result.skipped} skipped): ${result.traces} traces, ${result.spans} spans, ${result.scores} scores`,
        ].join('\n'),
      );
    });
}
