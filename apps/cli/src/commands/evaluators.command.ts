import type { Command } from 'commander';
import { CliError, printResult, table } from '../output';
import type { RpcInputs, RpcOutputs } from '../rpc-client';
import { LoggedIn } from '../session';
import { type ApiOptions, apiCommand } from './api-command';

type Evaluator = RpcOutputs['evaluator']['list'][number];
type EvaluatorWithSecret = RpcOutputs['evaluator']['create'];
type RunPage = RpcOutputs['evaluator']['runs'];
type RunStatus = RpcInputs['evaluator']['runs']['status'];
type CreateInput = RpcInputs['evaluator']['create'];
type TestResult = RpcOutputs['evaluator']['test'];

/** The options of `evaluators create|update`, as commander hands them over. */
export interface EvaluatorOptions extends ApiOptions {
  project: string;
  id?: string;
  name?: string;
  url?: string;
  header: string[];
  timeoutMs?: string;
  retries?: string;
  spanTypes?: string;
  names?: string;
  sampleRate?: string;
  tags?: string;
  environments?: string;
  target?: string;
  quietSeconds?: string;
  enabled?: boolean;
  disabled?: boolean;
  kind?: string;
  connection?: string;
  model?: string;
  prompt?: string;
  promptLabel?: string;
  scoreType?: string;
  /** Only `create` takes it. */
  category?: string[];
}

/** A number as typed; whether it is in range is the API's rule, and its message names the field. */
function numberOption(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!value.trim() || !Number.isFinite(n)) throw new CliError(`${flag}: "${value}" is not a number`);
  return n;
}

/** `a, b` → ['a', 'b']; an empty value is an empty list (`--names ''` clears the names on update). */
const listOption = (value: string | undefined): string[] | undefined =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);

/** `--header 'Name: value'`, repeated, as curl takes it. */
function headersOption(values: string[]): Record<string, string> | undefined {
  if (!values.length) return undefined;
  const headers: Record<string, string> = {};
  for (const header of values) {
    const colon = header.indexOf(':');
    const name = header.slice(0, colon).trim();
    if (colon < 0 || !name) throw new CliError(`--header: "${header}" must look like 'Name: value'`);
    if (name in headers) throw new CliError(`--header: ${name} is given twice`);
    headers[name] = header.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * `--prompt NAME[@LABEL]`: the label after the last @ (labels have none). A name that has an @
 * of its own is given whole with `--prompt-label`, which then names the label.
 */
function promptOption(prompt: string | undefined, label: string | undefined): { name?: string; label?: string } | undefined {
  if (prompt === undefined) return label === undefined ? undefined : { label };
  if (label !== undefined) return { name: prompt, label };
  const at = prompt.lastIndexOf('@');
  return at < 0 ? { name: prompt } : { name: prompt.slice(0, at), label: prompt.slice(at + 1) };
}

/**
 * The `judge` of an LLM judge from its flags, when any is given: only those given, so that the
 * API names the one missing (`judge.model: is required`).
 */
function judgeOption(opts: EvaluatorOptions): CreateInput['judge'] {
  const fields = {
    connectionId: opts.connection,
    model: opts.model,
    prompt: promptOption(opts.prompt, opts.promptLabel),
    scoreType: opts.scoreType,
    categories: opts.category?.length ? opts.category : undefined,
  };
  const given = Object.entries(fields).filter(([, value]) => value !== undefined);
  return given.length ? (Object.fromEntries(given) as CreateInput['judge']) : undefined;
}

function enabledOption({ enabled, disabled }: EvaluatorOptions): boolean | undefined {
  if (enabled && disabled) throw new CliError('--enabled and --disabled contradict each other');
  return enabled ? true : disabled ? false : undefined;
}

/**
 * The input of `evaluator.create` or `evaluator.update` (CONTRACT "Webhook evaluators") from
 * the options: only what was given, so that the API fills the defaults on create and keeps
 * the other values on update. Ranges and formats are checked by the API alone.
 */
export function evaluatorInput(opts: EvaluatorOptions): CreateInput & { id?: string } {
  const filter = {
    spanTypes: listOption(opts.spanTypes),
    names: listOption(opts.names),
    sampleRate: numberOption('--sample-rate', opts.sampleRate),
    tags: listOption(opts.tags),
    environments: listOption(opts.environments),
  };
  const filterGiven = Object.values(filter).some((value) => value !== undefined);
  const judge = judgeOption(opts);
  const fields = {
    id: opts.id,
    name: opts.name,
    // The judge's flags say the kind: `--kind llm-judge` may be left out.
    kind: (opts.kind ?? (judge && 'llm-judge')) as CreateInput['kind'],
    judge,
    url: opts.url,
    headers: headersOption(opts.header),
    timeoutMs: numberOption('--timeout-ms', opts.timeoutMs),
    retries: numberOption('--retries', opts.retries),
    filter: filterGiven ? filter : undefined,
    enabled: enabledOption(opts),
    target: opts.target as CreateInput['target'],
    quietSeconds: numberOption('--quiet-seconds', opts.quietSeconds),
  };
  return { projectId: opts.project, ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) };
}

/** The options create and update share. */
export const evaluatorSettingOptions = (command: Command): Command =>
  command
    .option(
      '--header <header>',
      "a header sent with each call, as 'Name: value' (repeatable; on update, replaces them all)",
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option('--timeout-ms <ms>', 'time-out of one call, 1000 to 30000 (default 10000)')
    .option('--retries <n>', 'retries on 5xx and network errors, 0 to 5 (default 1)')
    .option('--span-types <types>', 'comma-separated span types to evaluate (default LLM)')
    .option('--names <names>', 'comma-separated span names to evaluate (default: any)')
    .option('--sample-rate <rate>', 'share of matching spans (or traces) evaluated, 0 to 1 (default 1)')
    .option('--target <target>', 'span: each selected span (default); trace: each trace once complete and quiet')
    .option('--quiet-seconds <s>', 'trace target: seconds without new data after the root span ended, 5 to 3600 (default 30)')
    .option('--tags <tags>', 'trace target: comma-separated trace tags, any of which selects a trace (default: any)')
    .option('--environments <envs>', 'trace target: comma-separated environments to evaluate (default: any)')
    .option('--disabled', 'keep the evaluator from running');

/** The options of an LLM judge, which `create` takes (a judge's settings change together, so `update` does not). */
export const judgeOptions = (command: Command): Command =>
  command
    .option('--kind <kind>', 'webhook (default) or llm-judge; the judge options below imply llm-judge')
    .option('--connection <id>', "llm-judge: the project's LLM connection to call")
    .option('--model <model>', 'llm-judge: the model asked, e.g. gpt-4.1-mini')
    .option('--prompt <name[@label]>', "llm-judge: the project's prompt template, by label when given (default: its newest version)")
    .option('--prompt-label <label>', "llm-judge: the prompt's label, for a prompt name that has an @ of its own")
    .option('--score-type <type>', 'llm-judge: numeric (0 to 1), boolean (1/0 with pass) or categorical')
    .option(
      '--category <name>',
      'llm-judge: a category a categorical judge chooses from (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [],
    );

const describe = (e: Evaluator): string =>
  [
    `${e.id}  ${e.name}  ${e.enabled ? 'enabled' : 'disabled'}  ${e.judge ? `llm-judge ${e.judge.model} on prompt ${e.judge.prompt.name}` : e.url}`,
    e.target === 'trace'
      ? `  traces, quiet ${e.quietSeconds} s; names ${e.filter.names.join(',') || 'any'}; tags ${e.filter.tags.join(',') || 'any'}; ` +
        `environments ${e.filter.environments.join(',') || 'any'}; sample rate ${e.filter.sampleRate}`
      : `  span types ${e.filter.spanTypes.join(',')}; names ${e.filter.names.join(',') || 'any'}; sample rate ${e.filter.sampleRate}`,
    `  time-out ${e.timeoutMs} ms; retries ${e.retries}; headers ${Object.keys(e.headers).join(', ') || 'none'}`,
  ].join('\n');

/** One line per run: when, status and reason, attempts, score, and a judge's model, tokens and cost. */
export const describeRuns = (page: RunPage, next: string): string => {
  const rows = page.data.map((r) => [
    r.createdAt,
    r.status,
    r.reason ?? '-',
    `${r.attempts} attempt${r.attempts === 1 ? '' : 's'}`,
    r.score === null ? 'no score' : `score ${r.score}`,
    r.judge
      ? `${r.judge.model ?? '?'} ${r.judge.promptTokens ?? '?'}+${r.judge.completionTokens ?? '?'} tokens $${r.judge.cost ?? '?'}`
      : '',
    r.error ?? '',
  ]);
  return page.meta.nextCursor
    ? `${table(rows)}
next page: ${next} --cursor ${page.meta.nextCursor}`
    : table(rows);
};

/** What `evaluators test` would have scored: its status and reason, attempts, score, a judge's call, and why. */
export const describeTest = (t: TestResult): string =>
  [
    [
      t.status,
      t.reason ?? '-',
      `${t.attempts} attempt${t.attempts === 1 ? '' : 's'}`,
      t.score === null ? 'no score' : `score ${t.score}${t.pass === null ? '' : t.pass ? ' pass' : ' fail'}`,
      t.judge
        ? `${t.judge.model ?? '?'} ${t.judge.promptTokens ?? '?'}+${t.judge.completionTokens ?? '?'} tokens $${t.judge.cost ?? '?'}`
        : '',
    ]
      .filter(Boolean)
      .join('  '),
    `  on ${t.target.spanId === null ? `trace ${t.target.traceId}` : `span ${t.target.spanId} of trace ${t.target.traceId}`}`,
    ...(t.comment === null ? [] : [`  comment: ${t.comment}`]),
    ...(t.error === null ? [] : [`  error: ${t.error}`]),
    '  (a test: nothing stored, no run counted)',
  ].join('\n');

/** The signing secret, shown by create and rotate-secret alone: the receiver verifies each call with it. */
const withSecret = (e: EvaluatorWithSecret): string =>
  `${describe(e)}\n  signing secret ${e.signingSecret}  (shown this once: give it to the endpoint, which verifies each call with it)`;

export function registerEvaluatorsCommands(program: Command): void {
  const evaluators = program.command('evaluators').description("a project's webhook and LLM judge evaluators (needs a login)");

  judgeOptions(
    evaluatorSettingOptions(
      apiCommand(evaluators, 'create', 'add a webhook evaluator (--url) or an LLM judge (--connection, --model, --prompt …) to a project')
        .requiredOption('--project <id>')
        .requiredOption('--name <name>')
        .option('--url <url>', 'webhook: the URL each span (or trace) is posted to'),
    ),
  ).action(async (opts: EvaluatorOptions) => {
    const evaluator = await LoggedIn.open(opts.api).rpc.evaluator.create.mutate(evaluatorInput(opts));
    // A judge has no signing secret: it calls its connection, not an endpoint of the team's.
    printResult(evaluator, !!opts.json, () => (evaluator.judge ? describe(evaluator) : withSecret(evaluator)));
  });

  apiCommand(evaluators, 'list', "a project's evaluators by name; header values show as ***")
    .requiredOption('--project <id>')
    .action(async (opts: ApiOptions & { project: string }) => {
      const listed = await LoggedIn.open(opts.api).rpc.evaluator.list.query({ projectId: opts.project });
      printResult(listed, !!opts.json, () => (listed.length ? listed.map(describe).join('\n') : table([])));
    });

  evaluatorSettingOptions(
    apiCommand(evaluators, 'update', 'change the options given; the others keep their values')
      .requiredOption('--project <id>')
      .requiredOption('--id <id>')
      .option('--name <name>')
      .option('--url <url>')
      .option('--enabled', 'let the evaluator run'),
  ).action(async (opts: EvaluatorOptions & { id: string }) => {
    const evaluator = await LoggedIn.open(opts.api).rpc.evaluator.update.mutate({ ...evaluatorInput(opts), id: opts.id });
    printResult(evaluator, !!opts.json, () => describe(evaluator));
  });

  apiCommand(evaluators, 'rotate-secret', 'give an evaluator a new signing secret; the old one stops working at once')
    .requiredOption('--project <id>')
    .requiredOption('--id <id>')
    .action(async (opts: ApiOptions & { project: string; id: string }) => {
      const evaluator = await LoggedIn.open(opts.api).rpc.evaluator.rotateSecret.mutate({ projectId: opts.project, id: opts.id });
      printResult(evaluator, !!opts.json, () => withSecret(evaluator));
    });

  apiCommand(evaluators, 'runs <id>', "an evaluator's run log, newest first: each run's status, reason, attempts, score and error")
    .requiredOption('--project <id>')
    .option('--status <status>', 'only runs in this status: queued, running, succeeded, failed or skipped')
    .option('--cursor <cursor>', 'the page after the one that gave this cursor')
    .action(async (id: string, opts: ApiOptions & { project: string; status?: string; cursor?: string }) => {
      // The status is the API's to check: its message names the field and the values.
      const input = { projectId: opts.project, id, status: opts.status as RunStatus, cursor: opts.cursor };
      const page = await LoggedIn.open(opts.api).rpc.evaluator.runs.query(input);
      printResult(page, !!opts.json, () => describeRuns(page, `spanlog evaluators runs ${id} --project ${opts.project}`));
    });

  apiCommand(evaluators, 'test <id>', 'run an evaluator once on a span or a trace and print what it would score; stores nothing')
    .requiredOption('--project <id>')
    .option('--span <id>', 'the span to evaluate')
    .option('--trace <id>', 'the trace to evaluate, as a trace target reads it')
    .action(async (id: string, opts: ApiOptions & { project: string; span?: string; trace?: string }) => {
      // "Exactly one of --span and --trace" is the API's rule: its message names the field.
      const input = { projectId: opts.project, evaluatorId: id, spanId: opts.span, traceId: opts.trace };
      const result = await LoggedIn.open(opts.api).rpc.evaluator.test.mutate(input);
      printResult(result, !!opts.json, () => describeTest(result));
    });

  apiCommand(evaluators, 'delete', 'remove an evaluator; it runs no more')
    .requiredOption('--project <id>')
    .requiredOption('--id <id>')
    .action(async (opts: ApiOptions & { project: string; id: string }) => {
      const result = await LoggedIn.open(opts.api).rpc.evaluator.delete.mutate({ projectId: opts.project, id: opts.id });
      printResult(result, !!opts.json, () => `deleted ${result.id}`);
    });
}
