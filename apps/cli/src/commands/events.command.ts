import type { Command } from 'commander';
import { exportIngest } from '@app/eventlog';
import { withEventLog } from '../event-log';
import { timestampOption, uuidOption } from '../options';
import { CliError, writeOut } from '../output';

interface ExportOptions {
  org: string;
  project?: string;
  from?: Date;
  to?: Date;
}

export function registerEventsCommands(program: Command): void {
  const events = program.command('events').description('the event log (operator: NATS_URL)');
  events
    .command('export')
    .description(
      "an organization's stored requests and deletions as NDJSON on stdout, in stream order: {seq, subject, receivedAt, schema, orgId, projectId, data}",
    )
    .requiredOption('--org <id>', 'the organization', uuidOption('--org', 'an organization'))
    .option('--project <id>', 'one of its projects only', uuidOption('--project', 'a project'))
    .option('--from <iso>', 'requests received at or after this instant', timestampOption('--from'))
    .option('--to <iso>', 'requests received before this instant', timestampOption('--to'))
    .action(async (opts: ExportOptions) => {
      if (opts.from && opts.to && opts.from >= opts.to) throw new CliError('--from must be before --to');
      const started = Date.now();
      const summary = await withEventLog((nats) =>
        exportIngest(nats, { orgId: opts.org, projectId: opts.project, from: opts.from, to: opts.to }, writeOut),
      );
      const range = summary.fromSeq <= summary.toSeq ? `sequences ${summary.fromSeq}–${summary.toSeq}` : 'nothing in range';
      process.stderr.write(
        `events export: ${summary.messages} messages (${summary.unreadable} unreadable) from ${summary.stream}, ${range}, in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      );
    });
}
