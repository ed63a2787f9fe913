import type { Command } from 'commander';
import { printResult, table } from '../output';
import { type KeyOptions, keyClient, keyCommand } from './key-command';

interface TraceOptions extends KeyOptions {
  minSeq?: string;
}

interface TraceSummary {
  id: string;
  name: string | null;
  timestamp: string;
  spanCount: number;
}

/** Filters of GET /api/v1/traces (CONTRACT "Traces"): option name → query parameter. */
const FILTERS = {
  id: 'id',
  name: 'name',
  tags: 'tags',
  userId: 'userId',
  sessionId: 'sessionId',
  environment: 'environment',
  from: 'fromTimestamp',
  to: 'toTimestamp',
  spanType: 'spanType',
  model: 'model',
  scoreName: 'scoreName',
  minScore: 'minScore',
  maxScore: 'maxScore',
  limit: 'limit',
  cursor: 'cursor',
  minSeq: 'minSeq',
} as const;

const traceCommand = (parent: Command, nameAndArgs: string, description: string): Command =>
  keyCommand(parent, nameAndArgs, description).option('--min-seq <token>', 'wait until the write that answered this Spanlog-Seq token is visible');

export function registerTracesCommands(program: Command): void {
  const traces = program.command('traces').description("a project's traces (needs an API key)");

  traceCommand(traces, 'list', 'traces, newest first')
    .option('--id <id>')
    .option('--name <name>')
    .option('--tags <tags>', 'comma-separated; all must match')
    .option('--user-id <id>')
    .option('--session-id <id>')
    .option('--environment <name>')
    .option('--from <iso>', 'earliest timestamp')
    .option('--to <iso>', 'latest timestamp')
    .option('--span-type <type>')
    .option('--model <model>')
    .option('--score-name <name>', 'traces with a score of this name')
    .option('--min-score <n>', 'whose value is at least n (booleans count as 1 and 0)')
    .option('--max-score <n>', 'whose value is at most n')
    .option('--limit <n>', '1 to 100 (default 50)')
    .option('--cursor <cursor>', 'nextCursor of the previous page')
    .action(async (opts: TraceOptions & Partial<Record<keyof typeof FILTERS, string>>) => {
      const { api, key } = keyClient(opts);
      const query = Object.fromEntries(Object.entries(FILTERS).map(([option, param]) => [param, opts[option as keyof typeof FILTERS]]));
      const page = await api.get<{ data: TraceSummary[]; meta: { nextCursor: string | null } }>('/api/v1/traces', key, query);
      printResult(page, !!opts.json, () =>
        [
          table(page.data.map((t) => [t.timestamp, t.id, t.name ?? '(unnamed)', `${t.spanCount} spans`])),
          ...(page.meta.nextCursor ? [`more: --cursor ${page.meta.nextCursor}`] : []),
        ].join('\n'),
      );
    });

  traceCommand(traces, 'get <id>', 'one trace with its spans and scores (a Spanlog, OTel or native id)').action(async (id: string, opts: TraceOptions) => {
    const { api, key } = keyClient(opts);
    const trace = await api.get<unknown>(`/api/v1/traces/${encodeURIComponent(id)}`, key, { minSeq: opts.minSeq });
    printResult(trace, !!opts.json, () => JSON.stringify(trace, null, 2));
  });
}
