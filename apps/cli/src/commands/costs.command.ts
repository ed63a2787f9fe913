import type { Command } from 'commander';
import { printResult, table } from '../output';
import type { RpcOutputs } from '../rpc-client';
import { type ReadOptions, readAccess, readCommand } from './key-command';

type UnpricedUsage = RpcOutputs['cost']['unpriced'];

/** One line per model: its unpriced types with their spans, its spans, first and last seen. */
export function unpricedText(usage: UnpricedUsage): string {
  if (!usage.models.length) return 'no unpriced usage: every model seen has a price (or a cost sent by the client)';
  return table([
    ['MODEL', 'USAGE TYPES', 'SPANS', 'FIRST SEEN', 'LAST SEEN'],
    ...usage.models.map((m) => [
      m.model || '(none)',
      m.usageTypes.map((t) => `${t.type} (${t.spans})`).join(', '),
      String(m.spans),
      m.firstSeen,
      m.lastSeen,
    ]),
  ]);
}

export function registerCostsCommands(program: Command): void {
  const costs = program.command('costs').description("what a project's costs are made of (with an API key, or after spanlog login)");

  readCommand(costs, 'unpriced', 'models and usage types seen without a price: their tokens are in no cost; add a price for them')
    .option('--from <iso>', 'from this time (whole 5-minute buckets)')
    .option('--to <iso>', 'up to this time')
    .action(async (opts: ReadOptions & { from?: string; to?: string }) => {
      const access = await readAccess(opts);
      const range = { ...(opts.from === undefined ? {} : { from: opts.from }), ...(opts.to === undefined ? {} : { to: opts.to }) };
      const usage: UnpricedUsage =
        access.kind === 'key'
          ? await access.api.get<UnpricedUsage>('/api/v1/costs/unpriced', access.key, range)
          : await access.me.rpc.cost.unpriced.query({ projectId: access.projectId, ...range });
      printResult(usage, !!opts.json, () => unpricedText(usage));
    });
}
