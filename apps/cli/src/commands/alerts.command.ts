import type { Command } from 'commander';
import { printResult, table } from '../output';
import type { RpcOutputs } from '../rpc-client';
import { LoggedIn } from '../session';
import { type ApiOptions, apiCommand } from './api-command';

type Monitor = RpcOutputs['monitor']['list'][number];

const ruleText = (m: Monitor) => {
  const filter = Object.entries(m.filter).map(([k, v]) => `${k}=${v}`);
  const metric = m.scoreName === null ? m.metric : `${m.metric}(${m.scoreName})`;
  return `${metric} ${m.comparison} ${m.threshold} over ${m.windowSeconds / 60} min${filter.length ? ` where ${filter.join(', ')}` : ''}`;
};
const valueText = (v: number | null) => (v === null ? '-' : String(v));

export function registerAlertsCommands(program: Command): void {
  const alerts = program.command('alerts').description("a project's monitors and their states (needs a login)");

  apiCommand(alerts, 'list', 'monitors with their current state (OK, ALERT, NO_DATA; "pending" before the first evaluation) and value')
    .requiredOption('--project <id>')
    .action(async (opts: ApiOptions & { project: string }) => {
      const monitors = await LoggedIn.open(opts.api).rpc.monitor.list.query({ projectId: opts.project });
      printResult(monitors, !!opts.json, () =>
        monitors.length
          ? table(
              monitors.map((m) => [
                m.id,
                m.name,
                m.enabled ? (m.state ?? 'pending') : 'disabled',
                `value ${valueText(m.value)}`,
                ruleText(m),
                `evaluated ${m.evaluatedAt ?? 'never'}`,
              ]),
            )
          : 'no monitors',
      );
    });

  apiCommand(alerts, 'history', "one monitor's changes of state, newest first, 50 a page")
    .requiredOption('--project <id>')
    .requiredOption('--id <monitorId>')
    .option('--cursor <cursor>', 'the nextCursor of the page before')
    .action(async (opts: ApiOptions & { project: string; id: string; cursor?: string }) => {
      const page = await LoggedIn.open(opts.api).rpc.monitor.history.query({
        projectId: opts.project,
        id: opts.id,
        ...(opts.cursor ? { cursor: opts.cursor } : {}),
      });
      printResult(page, !!opts.json, () =>
        [
          page.data.length
            ? table(
                page.data.map((h) => [
                  h.at,
                  `${h.previousState ?? 'pending'} → ${h.state}`,
                  `value ${valueText(h.value)}`,
                  `${h.comparison} ${h.threshold}`,
                  `window ${h.windowStart} – ${h.windowEnd}`,
                ]),
              )
            : 'no changes of state yet',
          ...(page.meta.nextCursor ? [`more: --cursor ${page.meta.nextCursor}`] : []),
        ].join('\n'),
      );
    });
}
