import type { Command } from 'commander';
import { printResult, table } from '../output';
import { type KeyOptions, keyClient, keyCommand } from './key-command';

interface TraceOptions extends KeyOptions {
  minSeq?: string;
}

interface TraceGetOptions extends TraceOptions {
  spansLimit?: string;
  spansCursor?: string;
}

/** What the human form of `traces get` reads of the answer to say whether spans follow (CONTRACT "Traces", paging). */
interface TracePage {
  spanCount: number;
  spans: unknown[];
  scoreCount: number;
  scores: unknown[];
  nextSpansCursor: string | null;
  nextScoresCursor: string | null;
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

  traceCommand(traces, 'get <id>', 'one trace with a page of its spans and scores (a Spanlog, OTel or native id)')
    .option('--spans-limit <n>', 'spans per page, 1 to 1000 (default 1000)')
    .option('--spans-cursor <cursor>', 'nextSpansCursor of the previous page')
    .action(async (id: string, opts: TraceGetOptions) => {
      const { api, key } = keyClient(opts);
      const trace = await api.get<TracePage>(`/api/v1/traces/${encodeURIComponent(id)}`, key, { minSeq: opts.minSeq, spansLimit: opts.spansLimit, spansCursor: opts.spansCursor });
      printResult(trace, !!opts.json, () => [JSON.stringify(trace, null, 2), ...morePages(id, trace)].join('\n'));
    });

  traceCommand(traces, 'span <traceId> <spanId>', 'one span whole, with the fields a page of `traces get` cut').action(async (traceId: string, spanId: string, opts: TraceOptions) => {
    const { api, key } = keyClient(opts);
    const span = await api.get<unknown>(`/api/v1/traces/${encodeURIComponent(traceId)}/spans/${encodeURIComponent(spanId)}`, key, { minSeq: opts.minSeq });
    printResult(span, !!opts.json, () => JSON.stringify(span, null, 2));
  });
}

/** The lines that say what a page of `traces get` left for later, and the command that reads it. */
export function morePages(id: string, trace: TracePage): string[] {
  const lines: string[] = [];
  if (trace.nextSpansCursor) {
    lines.push(`${trace.spans.length} of ${trace.spanCount} spans shown; next page: spanlog traces get ${id} --spans-cursor ${trace.nextSpansCursor}`);
  }
  if (trace.nextScoresCursor) {
    lines.push(`${trace.scores.length} of ${trace.scoreCount} scores shown; the rest: GET /api/v1/traces/${id}/scores?cursor=${trace.nextScoresCursor}`);
  }
  return lines;
}
