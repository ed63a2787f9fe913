import type { Command } from 'commander';
import { CliError, printResult, table } from '../output';
import type { RpcInputs, RpcOutputs } from '../rpc-client';
import { LoggedIn } from '../session';
import { type ApiOptions, apiCommand } from './api-command';

type Evaluator = RpcOutputs['evaluator']['list'][number];
type EvaluatorWithSecret = RpcOutputs['evaluator']['create'];
type RunPage = RpcOutputs['evaluator']['runs'];
type RunStatus = RpcInputs['evaluator']['runs']['status'];

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

function enabledOption({ enabled, disabled }: EvaluatorOptions): boolean | undefined {
  if (enabled && disabled) throw new CliError('--enabled and --disabled contradict each other');
  return enabled ? true : disabled ? false : undefined;
}

/**
 * The input of `evaluator.create` or `evaluator.update` (CONTRACT "Webhook evaluators") from
 * the options: only what was given, so that the API fills the defaults on create and keeps
 * the other values on update. Ranges and formats are checked by the API alone.
 */
export function evaluatorInput(opts: EvaluatorOptions): RpcInputs['evaluator']['create'] & { id?: string } {
  const filter = {
    spanTypes: listOption(opts.spanTypes),
    names: listOption(opts.names),
    sampleRate: numberOption('--sample-rate', opts.sampleRate),
    tags: listOption(opts.tags),
    environments: listOption(opts.environments),
  };
  const filterGiven = Object.values(filter).some((value) => value !== undefined);
  const fields = {
    id: opts.id,
    name: opts.name,
    url: opts.url,
    headers: headersOption(opts.header),
    timeoutMs: numberOption('--timeout-ms', opts.timeoutMs),
    retries: numberOption('--retries', opts.retries),
    filter: filterGiven ? filter : undefined,
    enabled: enabledOption(opts),
    target: opts.target as RpcInputs['evaluator']['create']['target'],
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

/** The signing secret, shown by create and rotate-secret alone: the receiver verifies each call with it. */
const withSecret = (e: EvaluatorWithSecret): string =>
  `${describe(e)}\n  signing secret ${e.signingSecret}  (shown this once: give it to the endpoint, which verifies each call with it)`;

export function registerEvaluatorsCommands(program: Command): void {
  const evaluators = program.command('evaluators').description("a project's webhook and LLM judge evaluators (needs a login)");

  evaluatorSettingOptions(
    apiCommand(evaluators, 'create', 'add a webhook evaluator to a project')
      .requiredOption('--project <id>')
      .requiredOption('--name <name>')
      .requiredOption('--url <url>'),
  ).action(async (opts: EvaluatorOptions) => {
    const evaluator = await LoggedIn.open(opts.api).rpc.evaluator.create.mutate(evaluatorInput(opts));
    printResult(evaluator, !!opts.json, () => withSecret(evaluator));
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

  apiCommand(evaluators, 'delete', 'remove an evaluator; it runs no more')
    .requiredOption('--project <id>')
    .requiredOption('--id <id>')
    .action(async (opts: ApiOptions & { project: string; id: string }) => {
      const result = await LoggedIn.open(opts.api).rpc.evaluator.delete.mutate({ projectId: opts.project, id: opts.id });
      printResult(result, !!opts.json, () => `deleted ${result.id}`);
    });
}
