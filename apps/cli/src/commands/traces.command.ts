import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Command } from 'commander';
import { CliError, printResult, table } from '../output';
import type { RpcInputs } from '../rpc-client';
import { type ReadAccess, type ReadOptions, readAccess, readCommand } from './key-command';

interface TraceOptions extends ReadOptions {
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
  timestamp: string | null;
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
  operation: 'operation',
  model: 'model',
  scoreName: 'scoreName',
  minScore: 'minScore',
  maxScore: 'maxScore',
  limit: 'limit',
  cursor: 'cursor',
  minSeq: 'minSeq',
} as const;

/** The list's filters without its page, which an export takes too. */
const { limit: _limit, cursor: _cursor, minSeq: _minSeq, ...EXPORT_FILTERS } = FILTERS;

interface ExportOptions extends ReadOptions, Partial<Record<keyof typeof EXPORT_FILTERS, string>> {
  format: string;
  include?: string;
  output?: string;
}

/** The options of the trace list's filters, shared by `traces list` and `traces export`. */
const filterOptions = (command: Command): Command =>
  command
    .option('--id <id>')
    .option('--name <name>')
    .option('--tags <tags>', 'comma-separated; all must match')
    .option('--user-id <id>')
    .option('--session-id <id>')
    .option('--environment <name>')
    .option('--from <iso>', 'earliest timestamp')
    .option('--to <iso>', 'latest timestamp')
    .option('--span-type <type>')
    .option('--operation <operation>', 'traces with a span of this operation (chat, execute_tool, invoke_agent…)')
    .option('--model <model>')
    .option('--score-name <name>', 'traces with a score of this name')
    .option('--min-score <n>', 'whose value is at least n (booleans count as 1 and 0)')
    .option('--max-score <n>', 'whose value is at most n');

const traceCommand = (parent: Command, nameAndArgs: string, description: string): Command =>
  readCommand(parent, nameAndArgs, description).option(
    '--min-seq <token>',
    'wait until the write that answered this Spanlog-Seq token is visible (with an API key)',
  );

/** The access to read with; the RPC has no read-your-writes token, so a session read cannot wait for one. */
function traceAccess(opts: TraceOptions): Promise<ReadAccess> {
  if (opts.minSeq !== undefined && !(opts.key ?? process.env.SPANLOG_API_KEY))
    throw new CliError(
      '--min-seq needs an API key (--key or SPANLOG_API_KEY): the login session reads through the dashboard RPC, which does not take it',
    );
  return readAccess(opts);
}

/**
 * The options go to the RPC as typed, as they do to REST: the API reads numbers and
 * timestamps out of the text and names the field it refuses. The router's input types are
 * those of the values once read (`limit: number`), hence this one assertion.
 */
const asTyped = <Input>(input: Record<string, unknown>): Input => input as Input;

/** `trace.list`'s input from the REST query: tags as a list, no minSeq. */
function rpcListInput(projectId: string, query: Record<string, string | undefined>): RpcInputs['trace']['list'] {
  const { tags, minSeq: _minSeq, ...rest } = query;
  return asTyped({
    projectId,
    ...rest,
    ...(tags !== undefined && {
      tags: tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    }),
  });
}

/** `trace.get`'s input from the options: a limit of digits as the number it is; anything else as sent, for the server to refuse naming the field. */
function rpcGetInput(projectId: string, id: string, opts: TraceGetOptions): RpcInputs['trace']['get'] {
  const limit = opts.spansLimit;
  return asTyped({
    projectId,
    id,
    ...(limit !== undefined && { spansLimit: /^\d+$/.test(limit) ? Number(limit) : limit }),
    ...(opts.spansCursor !== undefined && { spansCursor: opts.spansCursor }),
  });
}

export function registerTracesCommands(program: Command): void {
  const traces = program.command('traces').description("a project's traces (with an API key, or after spanlog login)");

  filterOptions(traceCommand(traces, 'list', 'traces, newest first'))
    .option('--limit <n>', '1 to 100 (default 50)')
    .option('--cursor <cursor>', 'nextCursor of the previous page')
    .action(async (opts: TraceOptions & Partial<Record<keyof typeof FILTERS, string>>) => {
      const access = await traceAccess(opts);
      const query = Object.fromEntries(Object.entries(FILTERS).map(([option, param]) => [param, opts[option as keyof typeof FILTERS]]));
      type Page = { data: TraceSummary[]; meta: { nextCursor: string | null } };
      const page: Page =
        access.kind === 'key'
          ? await access.api.get<Page>('/api/v1/traces', access.key, query)
          : await access.me.rpc.trace.list.query(rpcListInput(access.projectId, query));
      printResult(page, !!opts.json, () =>
        [
          table(page.data.map((t) => [t.timestamp ?? '', t.id, t.name ?? '(unnamed)', `${t.spanCount} spans`])),
          ...(page.meta.nextCursor ? [`more: --cursor ${page.meta.nextCursor}`] : []),
        ].join('\n'),
      );
    });

  filterOptions(readCommand(traces, 'export', 'every matching trace (not a page) as JSONL or CSV, streamed to a file or stdout'))
    .requiredOption('--format <format>', 'jsonl (one trace per line) or csv')
    .option('--include <parts>', 'spans, scores or spans,scores: each trace with them')
    .option('-o, --output <file>', 'write here (default: stdout)')
    .action(async (opts: ExportOptions) => {
      const access = await readAccess(opts);
      const query = {
        ...Object.fromEntries(
          Object.entries(EXPORT_FILTERS).map(([option, param]) => [param, opts[option as keyof typeof EXPORT_FILTERS]]),
        ),
        format: opts.format,
        include: opts.include,
      };
      const res =
        access.kind === 'key'
          ? await access.api.stream('/api/v1/traces/export', access.key, query)
          : await access.me.call((token) =>
              access.me.api.stream(`/api/v1/projects/${encodeURIComponent(access.projectId)}/traces/export`, token, query),
            );
      if (!res.body) throw new CliError('the API answered the export without a body');
      const out = opts.output ? createWriteStream(opts.output) : process.stdout;
      try {
        await pipeline(Readable.fromWeb(res.body as WebReadableStream), out);
      } catch (err) {
        // A transfer the server cut (EXPORT_LIMITS.maxDurationMs) or the network lost: what was written is incomplete.
        throw new CliError(`the export was cut before its end (${(err as Error).message}); what was written is incomplete`);
      }
    });

  traceCommand(traces, 'get <id>', 'one trace with a page of its spans and scores (a Spanlog, OTel or native id)')
    .option('--spans-limit <n>', 'spans per page, 1 to 1000 (default 1000)')
    .option('--spans-cursor <cursor>', 'nextSpansCursor of the previous page')
    .action(async (id: string, opts: TraceGetOptions) => {
      const access = await traceAccess(opts);
      const trace: TracePage =
        access.kind === 'key'
          ? await access.api.get<TracePage>(`/api/v1/traces/${encodeURIComponent(id)}`, access.key, {
              minSeq: opts.minSeq,
              spansLimit: opts.spansLimit,
              spansCursor: opts.spansCursor,
            })
          : await access.me.rpc.trace.get.query(rpcGetInput(access.projectId, id, opts));
      printResult(trace, !!opts.json, () => [JSON.stringify(trace, null, 2), ...morePages(id, trace)].join('\n'));
    });

  traceCommand(traces, 'span <traceId> <spanId>', 'one span whole, with the fields a page of `traces get` cut').action(
    async (traceId: string, spanId: string, opts: TraceOptions) => {
      const access = await traceAccess(opts);
      const span =
        access.kind === 'key'
          ? await access.api.get<unknown>(`/api/v1/traces/${encodeURIComponent(traceId)}/spans/${encodeURIComponent(spanId)}`, access.key, {
              minSeq: opts.minSeq,
            })
          : await access.me.rpc.trace.span.query({ projectId: access.projectId, traceId, spanId });
      printResult(span, !!opts.json, () => JSON.stringify(span, null, 2));
    },
  );
}

/** The lines that say what a page of `traces get` left for later, and the command that reads it. */
export function morePages(id: string, trace: TracePage): string[] {
  const lines: string[] = [];
  if (trace.nextSpansCursor) {
    lines.push(
      `${trace.spans.length} of ${trace.spanCount} spans shown; next page: spanlog traces get ${id} --spans-cursor ${trace.nextSpansCursor}`,
    );
  }
  if (trace.nextScoresCursor) {
    lines.push(
      `${trace.scores.length} of ${trace.scoreCount} scores shown; the rest: GET /api/v1/traces/${id}/scores?cursor=${trace.nextScoresCursor}`,
    );
  }
  return lines;
}
