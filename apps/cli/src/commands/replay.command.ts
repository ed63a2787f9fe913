import type { Command } from 'commander';
import { assertSchemaCurrent } from '@app/persistence';
import { UnknownProjectError, replayTelemetry } from '@app/projections';
import { withDatabase } from '../database';
import { withEventLog } from '../event-log';
import { sequenceOption, timestampOption, uuidOption } from '../options';
import { CliError, printResult } from '../output';

interface ReplayOptions {
  project: string;
  fromSeq?: number;
  fromTime?: Date;
  json?: boolean;
}

export function registerReplayCommand(program: Command): void {
  program
    .command('replay')
    .description(
      "apply one project's stored requests again from a point of INGEST: no webhook called, no usage counted twice (operator: DATABASE_URL / NATS_URL)",
    )
    .requiredOption('--project <id>', 'the project', uuidOption('--project', 'a project'))
    .option('--from-seq <n>', 'the INGEST sequence to start from', sequenceOption('--from-seq'))
    .option('--from-time <iso>', "start from the project's first request stored at or after this instant", timestampOption('--from-time'))
    .option('--json', 'print JSON')
    .action(async (opts: ReplayOptions) => {
      if ((opts.fromSeq === undefined) === (opts.fromTime === undefined)) throw new CliError('give one of --from-seq and --from-time');
      const from = opts.fromSeq !== undefined ? { seq: opts.fromSeq } : { time: opts.fromTime as Date };
      const result = await withEventLog((nats) =>
        withDatabase(async (ds) => {
          await assertSchemaCurrent(ds);
          try {
            return await replayTelemetry(ds, nats, {
              projectId: opts.project,
              from,
              onSkipped: (seq, reason) => process.stderr.write(`replay: skipped sequence ${seq}: ${reason}\n`),
            });
          } catch (err) {
            if (err instanceof UnknownProjectError) throw new CliError(err.message);
            throw err;
          }
        }),
      );
      printResult(result, !!opts.json, () =>
        [
          `replayed project ${result.projectId}: ${result.stream} sequences ${result.fromSeq}–${result.toSeq} in ${(result.durationMs / 1000).toFixed(1)} s`,
          `${result.messages} messages read: ${result.applied} applied, ${result.skipped} skipped (unreadable), ${result.deadLettered} dead-lettered (left to spanlog dlq retry)`,
        ].join('\n'),
      );
    });
}
