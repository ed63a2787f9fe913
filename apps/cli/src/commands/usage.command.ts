import type { Command } from 'commander';
import { printResult, table } from '../output';
import { LoggedIn } from '../session';
import { type ApiOptions, apiCommand } from './api-command';

const limitText = (limit: number | null) => (limit === null ? 'unlimited' : String(limit));

export function registerUsageCommands(program: Command): void {
  apiCommand(program, 'usage', "this UTC month's usage of an organization against its plan")
    .requiredOption('--org <id>')
    .action(async (opts: ApiOptions & { org: string }) => {
      const usage = await LoggedIn.open(opts.api).rpc.usage.get.query({ orgId: opts.org });
      printResult(usage, !!opts.json, () =>
        [
          `${usage.month} on ${usage.plan}`,
          table([
            ['traces', String(usage.traces), `of ${limitText(usage.limits.traces)}`, `overage ${usage.overage.traces}`],
            ['spans', String(usage.spans), '', ''],
            ['eval runs', String(usage.evalRuns), `of ${limitText(usage.limits.evalRuns)}`, `overage ${usage.overage.evalRuns}`],
          ]),
        ].join('\n'),
      );
    });
}
