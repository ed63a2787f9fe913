import { createHash } from 'node:crypto';
import type { Pool } from 'pg';

/**
 * The data set of the ceiling stage (issue 33): one project, `spans` spans in `spans / 10`
 * traces over the last DAYS days, written straight into the read models with
 * `INSERT … SELECT … FROM generate_series`. What the stage measures is reading at this size,
 * not ingesting it (the projection, rebuild and burst stages measure that), so the rows are
 * made where they live, shaped as the projection writes them (telemetry-writer.ts, columns.ts).
 *
 * Every value is a function of the row's number, so the stage knows the ids, names, users and
 * sessions it asks for without reading them back.
 */

export const SPANS_PER_TRACE = 10;
/** Five days past a month: a month's retention has something to delete. */
export const DAYS = 35;
/** Rows per statement: large enough to be fast, small enough to show progress and keep each transaction's WAL modest. */
const ROWS_PER_STATEMENT = 500_000;

export const TRACE_NAMES = [
  'chat-completion',
  'rag-answer',
  'support-agent',
  'summarize-ticket',
  'classify-intent',
  'extract-entities',
  'code-review',
  'translate',
  'sql-agent',
  'nightly-eval',
];
/** Weights of TRACE_NAMES, in tenths of a percent (sum 1000): a few names carry most traffic, some are rare. */
const NAME_WEIGHTS = [300, 200, 150, 100, 80, 60, 50, 40, 15, 5];
export const ENVIRONMENTS = ['production', 'staging', 'development'];
export const SERVICES = ['checkout', 'support', 'search', 'billing'];
/** Models of the LLM spans; the last one is rare (about 1 trace in 100). */
export const MODELS = ['gpt-4o-mini', 'gpt-4o', 'claude-3-5-sonnet', 'claude-3-5-haiku', 'gemini-1.5-flash', 'llama-3.1-70b', 'o1-preview'];
const MODEL_WEIGHTS = [350, 250, 150, 100, 80, 60, 10];
/** USD per token, prompt and completion, of MODELS (list prices, 2024). */
const MODEL_PRICES: [number, number][] = [
  [0.15e-6, 0.6e-6],
  [2.5e-6, 10e-6],
  [3e-6, 15e-6],
  [0.8e-6, 4e-6],
  [0.075e-6, 0.3e-6],
  [0.9e-6, 0.9e-6],
  [15e-6, 60e-6],
];
export const SPAN_TYPES = ['AGENT', 'LLM', 'TOOL', 'RETRIEVAL', 'CUSTOM'];
export const OPERATIONS = ['invoke_agent', 'chat', 'execute_tool', 'retrieve'];
export const SCORE_NAMES = ['helpfulness', 'correctness'];

/** Users and sessions spread over many values: about 50 traces a user, 5 a session. */
export const usersOf = (traces: number) => Math.max(100, Math.floor(traces / 50));
export const sessionsOf = (traces: number) => Math.floor(traces / 5);

/** A uuid from text, as Postgres's `md5(text)::uuid` makes it. */
export function md5Uuid(text: string): string {
  const h = createHash('md5').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
export const traceIdOf = (i: number) => md5Uuid(`ceiling-trace-${i}`);
export const userIdOf = (n: number) => `user-${n}`;
export const sessionIdOf = (n: number) => `session-${n}`;

/**
 * A pseudo-random 0 ≤ h < m of an integer SQL expression: a multiplicative hash modulo a prime,
 * each salt its own multiplier so that two hashes of one row are not correlated (bigint-safe for
 * n below 4·10^8).
 */
const hash = (n: string, salt: number, m: number | string) => `((${n}) * ${2654435761 + salt * 100_003 * 7919} % 4294967291 % (${m}))`;

/** SQL of the index into `weights` a hash `h` in 0–999 falls in. */
function weighted(h: string, weights: number[]): string {
  let bound = 0;
  const arms = weights.slice(0, -1).map((w, i) => `WHEN ${h} < ${(bound += w)} THEN ${i + 1}`);
  return `CASE ${arms.join(' ')} ELSE ${weights.length} END`;
}

const sqlArray = (values: string[]) => `ARRAY[${values.map((v) => `'${v}'`).join(', ')}]`;

/**
 * Trace `i`'s time: evenly over DAYS days up to `now` in trace order (as a service sends
 * them), so the five traces of a session are minutes apart. `$2` is the trace count, `$3` now.
 */
const TRACE_TIME = (i: string) => `($3::timestamptz - interval '${DAYS} days' + (${i}) * (interval '${DAYS} days' / $2::int))`;
/** The model of trace `i`'s LLM calls: one per trace, so a model filter selects traces by their weight. */
const TRACE_MODEL = (i: string) => weighted(hash(i, 7, 1000), MODEL_WEIGHTS);

const TRACES_SQL = `
INSERT INTO traces (project_id, id, otel_trace_id, name, min_span_start, first_event_time, user_id, session_id, metadata, tags,
                    input, output, release, version, environment, created_at)
SELECT $1, md5('ceiling-trace-' || i)::uuid, md5('ceiling-trace-' || i), (${sqlArray(TRACE_NAMES)})[${weighted(hash('i', 1, 1000), NAME_WEIGHTS)}],
       ts, ts, 'user-' || ${hash('i', 2, '$4::int')},
       CASE WHEN ${hash('i', 3, 10)} = 0 THEN NULL ELSE 'session-' || (i / 5) END,
       jsonb_build_object('service.name', svc, 'tenant', 'acme-' || ${hash('i', 4, 200)}, 'sdk', 'opentelemetry-python 1.27'),
       CASE WHEN ${hash('i', 5, 20)} = 0 THEN ARRAY['service:' || svc, 'beta'] ELSE ARRAY['service:' || svc] END,
       jsonb_build_object('question', 'Customer ' || i || ' asks: how do I change the billing address on invoice ' || (i * 7 % 100000) || ' before it is sent?'),
       jsonb_build_object('answer', 'Open Settings, then Billing, and edit the address; invoices not yet sent use the new one. Reference ' || md5(i::text)),
       'v2.' || ${hash('i', 6, 30)}, '1.' || (i % 7), (${sqlArray(ENVIRONMENTS)})[1 + ${hash('i', 8, 10)} / 8 + ${hash('i', 8, 10)} / 9], ts
  FROM generate_series($5::bigint, $6::bigint) AS i,
       LATERAL (SELECT ${TRACE_TIME('i')} AS ts, (${sqlArray(SERVICES)})[1 + ${hash('i', 9, SERVICES.length)}] AS svc) x`;

/**
 * Span `k` is the `k % 10`th of trace `k / 10`: an agent's root span, a retrieval, four LLM
 * calls with tool calls between them, a post-processing step. `$2` trace count, `$3` now.
 */
const SPANS_SQL = `
INSERT INTO spans (project_id, id, trace_id, otel_span_id, parent_id, name, type, operation, model, model_parameters,
                   prompt_tokens, completion_tokens, total_tokens, cost, cost_source, input, output, metadata, attributes,
                   input_attribute, output_attribute, start_time, end_time, level, status_message, created_at)
SELECT $1, md5('ceiling-span-' || k)::uuid, md5('ceiling-trace-' || i)::uuid, left(md5('ceiling-span-' || k), 16),
       CASE WHEN j > 0 THEN md5('ceiling-span-' || (k - j))::uuid END,
       CASE kind WHEN 'AGENT' THEN 'agent.run' WHEN 'RETRIEVAL' THEN 'vector-search' WHEN 'LLM' THEN 'chat ' || model
                 WHEN 'TOOL' THEN 'tool.' || (ARRAY['lookup_order', 'search_docs', 'send_email'])[1 + j % 3] ELSE 'postprocess' END,
       kind, CASE kind WHEN 'AGENT' THEN 'invoke_agent' WHEN 'LLM' THEN 'chat' WHEN 'TOOL' THEN 'execute_tool' WHEN 'RETRIEVAL' THEN 'retrieve' END,
       CASE WHEN kind = 'LLM' THEN model END,
       CASE WHEN kind = 'LLM' THEN '{"temperature": 0.2, "max_tokens": 1024}'::jsonb END,
       prompt, completion, prompt + completion,
       CASE WHEN kind = 'LLM' THEN round((prompt * (ARRAY[${MODEL_PRICES.map((p) => p[0]).join(', ')}]::float8[])[m]
                                        + completion * (ARRAY[${MODEL_PRICES.map((p) => p[1]).join(', ')}]::float8[])[m])::numeric, 12)::float8 END,
       CASE WHEN kind = 'LLM' THEN 'builtin:' || model END,
       CASE WHEN kind = 'LLM' THEN jsonb_build_array(
              jsonb_build_object('role', 'system', 'content', 'You are a support assistant for Acme. Answer briefly and cite the help centre.'),
              jsonb_build_object('role', 'user', 'content', 'Ticket ' || i || ': my invoice ' || (k % 99991) || ' shows the old billing address, can you fix it?'))
            ELSE jsonb_build_object('query', 'invoice ' || (k % 99991) || ' billing address', 'step', j) END,
       CASE WHEN kind = 'LLM' THEN jsonb_build_object('role', 'assistant', 'content',
              'I have updated the billing address on invoice ' || (k % 99991) || '. The corrected invoice will be sent within the hour. ' || md5(k::text))
            ELSE jsonb_build_object('ok', true, 'items', j * 3) END,
       CASE WHEN j = 0 THEN jsonb_build_object('agent', 'support', 'attempt', 1) END,
       CASE WHEN kind = 'LLM' THEN jsonb_build_object('gen_ai.system', split_part(model, '-', 1), 'gen_ai.request.model', model, 'server.address', 'api.example.com')
            ELSE jsonb_build_object('code.function', 'step_' || j) END,
       CASE WHEN kind = 'LLM' THEN 'gen_ai.prompt' END, CASE WHEN kind = 'LLM' THEN 'gen_ai.completion' END,
       st, st + ms * interval '1 millisecond',
       CASE WHEN lvl = 0 THEN 'ERROR' WHEN lvl < 3 THEN 'WARNING' ELSE 'DEFAULT' END,
       CASE WHEN lvl = 0 THEN 'upstream returned 429: rate limited' END, st
  FROM generate_series($4::bigint, $5::bigint) AS k,
       LATERAL (SELECT k / ${SPANS_PER_TRACE} AS i, (k % ${SPANS_PER_TRACE})::int AS j) ij,
       LATERAL (SELECT (${sqlArray(['AGENT', 'RETRIEVAL', 'LLM', 'TOOL', 'LLM', 'TOOL', 'LLM', 'TOOL', 'LLM', 'CUSTOM'])})[j + 1] AS kind,
                       ${TRACE_MODEL('i')} AS m, ${hash('k', 11, 100)} AS lvl) a,
       LATERAL (SELECT (${sqlArray(MODELS)})[m] AS model,
                       CASE WHEN kind = 'LLM' THEN 200 + ${hash('k', 12, 3800)} END AS prompt,
                       CASE WHEN kind = 'LLM' THEN 20 + ${hash('k', 13, 780)} END AS completion,
                       ${TRACE_TIME('i')} + j * interval '150 milliseconds' AS st,
                       CASE kind WHEN 'AGENT' THEN 1500 + ${hash('k', 14, 6000)} WHEN 'LLM' THEN 300 + ${hash('k', 14, 4000)} ELSE 5 + ${hash('k', 14, 400)} END AS ms) b`;

/** One score on a tenth of the traces (helpfulness, numeric), a second on a fiftieth (correctness, boolean). */
const SCORES_SQL = `
INSERT INTO scores (project_id, id, trace_id, name, value, data_type, source, "timestamp", created_at)
SELECT $1, md5('ceiling-score-' || i || '-' || n)::uuid, md5('ceiling-trace-' || i)::uuid, n,
       CASE WHEN n = 'helpfulness' THEN to_jsonb((${hash('i', 21, 101)} / 100.0)::float8) ELSE to_jsonb(${hash('i', 22, 4)} > 0) END,
       CASE WHEN n = 'helpfulness' THEN 'NUMERIC' ELSE 'BOOLEAN' END, 'API', ts, ts
  FROM generate_series($4::bigint, $5::bigint) AS i, LATERAL (SELECT ${TRACE_TIME('i')} AS ts) x,
       unnest(ARRAY['helpfulness', 'correctness']) AS n
 WHERE (n = 'helpfulness' AND ${hash('i', 23, 10)} = 0) OR (n = 'correctness' AND ${hash('i', 24, 50)} = 0)`;

export interface LoadFigures {
  spans: number;
  traces: number;
  scores: number;
  users: number;
  sessions: number;
  /** Writing the rows (indexes kept up as they go), then ANALYZE. */
  insertSeconds: number;
  analyzeSeconds: number;
  /** Bytes of the read models and their indexes once loaded. */
  tableBytes: Record<string, number>;
}

export interface CeilingData {
  projectId: string;
  traces: number;
  /** The instant the data set's times are counted back from. */
  now: Date;
}

/**
 * Writes traces `first`…`last` of the data set, with their spans and scores, in statements of
 * ROWS_PER_STATEMENT rows, saying how far it got; returns the scores written.
 */
async function writeTraces(db: Pool, data: CeilingData, first: number, last: number, say: (line: string) => void): Promise<number> {
  const { projectId, traces, now } = data;
  const started = performance.now();
  const chunked = async (label: string, from: number, to: number, run: (from: number, to: number) => Promise<unknown>) => {
    for (let at = from; at <= to; at += ROWS_PER_STATEMENT) {
      const end = Math.min(to, at + ROWS_PER_STATEMENT - 1);
      await run(at, end);
      const s = (performance.now() - started) / 1_000;
      say(
        `${label}: ${(end - from + 1).toLocaleString('en-US')} of ${(to - from + 1).toLocaleString('en-US')} written (${s.toFixed(0)} s)`,
      );
    }
  };
  await chunked('traces', first, last, (from, to) => db.query(TRACES_SQL, [projectId, traces, now, usersOf(traces), from, to]));
  // Span k is the (k % 10)th of trace k / 10.
  await chunked('spans', first * SPANS_PER_TRACE, last * SPANS_PER_TRACE + SPANS_PER_TRACE - 1, (from, to) =>
    db.query(SPANS_SQL, [projectId, traces, now, from, to]),
  );
  let scores = 0;
  await chunked('scores of traces', first, last, async (from, to) => {
    scores += (await db.query(SCORES_SQL, [projectId, traces, now, from, to])).rowCount ?? 0;
  });
  return scores;
}

/** Writes the whole data set, then ANALYZE. */
export async function loadCeiling(db: Pool, data: CeilingData, say: (line: string) => void): Promise<LoadFigures> {
  const started = performance.now();
  const scores = await writeTraces(db, data, 1, data.traces, say);
  const insertSeconds = (performance.now() - started) / 1_000;
  const analyzed = performance.now();
  await db.query('ANALYZE traces, spans, scores');
  const analyzeSeconds = (performance.now() - analyzed) / 1_000;
  return {
    spans: data.traces * SPANS_PER_TRACE,
    traces: data.traces,
    scores,
    users: usersOf(data.traces),
    sessions: sessionsOf(data.traces),
    insertSeconds,
    analyzeSeconds,
    tableBytes: await tableBytes(db),
  };
}

/** Bytes of the read models and their indexes. */
async function tableBytes(db: Pool): Promise<Record<string, number>> {
  const sizes: { t: string; bytes: string }[] = await db
    .query(`SELECT t, pg_total_relation_size(t)::text AS bytes FROM unnest(ARRAY['traces', 'spans', 'scores']) AS t`)
    .then((r) => r.rows);
  return Object.fromEntries(sizes.map((s) => [s.t, Number(s.bytes)]));
}

/**
 * The figures of a data set an earlier run loaded (`bench:stage --keep`, then `--reuse`), and
 * the instant its times were counted back from, made whole again first: a run that kept it may
 * have ended with its month's retention, which deleted the oldest traces. Trace i's time is
 * now − DAYS + i · (DAYS / traces): the newest is `now`, the spacing of the two newest gives the
 * trace count, and the oldest left says which were deleted; those are written again.
 */
export async function loadedCeiling(
  db: Pool,
  projectId: string,
  say: (line: string) => void,
): Promise<{ load: Omit<LoadFigures, 'insertSeconds' | 'analyzeSeconds'> & { insertSeconds: null; analyzeSeconds: null }; now: Date }> {
  const [shape] = (
    await db.query(
      `SELECT max(ts) AS now, round(extract(epoch FROM interval '${DAYS} days') / extract(epoch FROM max(ts) - min(ts) FILTER (WHERE n = 2)))::int AS traces,
              round(extract(epoch FROM (SELECT min("timestamp") FROM traces WHERE project_id = $1) - (max(ts) - interval '${DAYS} days'))
                    / extract(epoch FROM max(ts) - min(ts) FILTER (WHERE n = 2)))::int AS oldest
         FROM (SELECT "timestamp" AS ts, row_number() OVER (ORDER BY "timestamp" DESC) AS n FROM traces WHERE project_id = $1 ORDER BY "timestamp" DESC LIMIT 2) x`,
      [projectId],
    )
  ).rows as { now: Date; traces: number; oldest: number }[];
  if (shape.oldest > 1) {
    say(`traces 1 to ${(shape.oldest - 1).toLocaleString('en-US')} were deleted (a month's retention): writing them again`);
    await writeTraces(db, { projectId, traces: shape.traces, now: shape.now }, 1, shape.oldest - 1, say);
    await db.query('ANALYZE traces, spans, scores');
  }
  const count = async (table: string) =>
    Number((await db.query(`SELECT count(*) AS n FROM ${table} WHERE project_id = $1`, [projectId])).rows[0].n);
  const load = {
    spans: await count('spans'),
    traces: await count('traces'),
    scores: await count('scores'),
    users: usersOf(shape.traces),
    sessions: sessionsOf(shape.traces),
    insertSeconds: null,
    analyzeSeconds: null,
    tableBytes: await tableBytes(db),
  };
  if (load.traces !== shape.traces || load.spans !== shape.traces * SPANS_PER_TRACE)
    throw new Error(
      `the kept data set holds ${load.traces} traces and ${load.spans} spans, not ${shape.traces} and ${shape.traces * SPANS_PER_TRACE}`,
    );
  return { load, now: shape.now };
}
