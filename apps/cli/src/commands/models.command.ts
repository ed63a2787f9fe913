import type { Command } from 'commander';
import { CliError, printResult, table } from '../output';
import type { RpcOutputs } from '../rpc-client';
import { LoggedIn } from '../session';
import { type ApiOptions, apiCommand } from './api-command';

type ModelList = RpcOutputs['model']['list'];
type Definition = ModelList['project'][number] | ModelList['builtIn'][number];

const perMillion = (prices: Record<string, number>) =>
  Object.entries(prices)
    .map(([type, usd]) => `${type} $${+(usd * 1e6).toPrecision(6)}/M`)
    .join(', ');
const since = (startDate: string) => (startDate.startsWith('1970-01-01') ? 'always' : `from ${startDate}`);
const row = (d: Definition) => [
  d.id,
  d.modelName,
  d.matchPattern,
  since(d.startDate),
  perMillion(d.prices),
  d.tiers?.length ? `${d.tiers.length} tier(s)` : '',
];

/** A recomputation's progress in one line: what it looked at of how many, and what it changed. */
export function recomputationText(r: ModelList['recomputation']): string {
  if (!r) return 'recomputation: none yet';
  const total = r.spansTotal === null ? '?' : String(r.spansTotal);
  const when = r.status === 'done' ? `finished ${r.finishedAt}` : `started ${r.startedAt}`;
  return `recomputation: ${r.status}, ${r.spansDone}/${total} spans looked at, ${r.spansRecosted} re-costed, ${when}`;
}

/** `type=usd` pairs, USD per token. */
function pricesOf(pairs: string[]): Record<string, number> {
  const prices: Record<string, number> = {};
  for (const pair of pairs) {
    const [type, usd] = pair.split('=');
    if (!type || usd === undefined || usd.trim() === '' || Number.isNaN(Number(usd)))
      throw new CliError(`--price ${pair}: must be <usage type>=<USD per token>, e.g. input=0.0000025`);
    prices[type] = Number(usd);
  }
  return prices;
}

export function registerModelsCommands(program: Command): void {
  const models = program
    .command('models')
    .description("a project's model price definitions, which override the built-in ones (needs a login)");

  apiCommand(models, 'list', "the project's definitions, the built-in ones with --built-in, and the last cost recomputation's progress")
    .requiredOption('--project <id>')
    .option('--built-in', 'list the built-in definitions too')
    .action(async (opts: ApiOptions & { project: string; builtIn?: boolean }) => {
      const list = await LoggedIn.open(opts.api).rpc.model.list.query({ projectId: opts.project });
      printResult(list, !!opts.json, () =>
        [
          list.project.length ? table(list.project.map(row)) : 'no project definitions (the built-in ones price every span)',
          ...(opts.builtIn
            ? ['built in:', table(list.builtIn.map(row))]
            : [`${list.builtIn.length} built-in definitions (--built-in lists them)`]),
          recomputationText(list.recomputation),
        ].join('\n'),
      );
    });

  apiCommand(models, 'add', "adds a definition; the project's past spans it prices are re-costed in the background")
    .requiredOption('--project <id>')
    .requiredOption('--model <name>', 'the model name it prices')
    .requiredOption(
      '--pattern <regex>',
      'anchored regular expression on the model name, matched case-insensitively, e.g. ^gpt-4o(-\\d{4}-\\d{2}-\\d{2})?$',
    )
    .option('--start <date>', 'ISO 8601: prices spans that start from then on (default: always)')
    .option(
      '--price <type=usd>',
      'USD per token of a usage type (input, output, cached_input, cache_write, reasoning or any); repeat it',
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .action(async (opts: ApiOptions & { project: string; model: string; pattern: string; start?: string; price: string[] }) => {
      const input = {
        projectId: opts.project,
        modelName: opts.model,
        matchPattern: opts.pattern,
        ...(opts.start ? { startDate: opts.start } : {}),
        prices: pricesOf(opts.price),
      };
      const created = await LoggedIn.open(opts.api).rpc.model.create.mutate(input);
      printResult(
        created,
        !!opts.json,
        () => `added ${created.id} (${created.modelName}); past costs are being recomputed: spanlog models list --project ${opts.project}`,
      );
    });

  apiCommand(models, 'rm', 'removes a project definition; the spans it priced are re-costed with what prices them now')
    .requiredOption('--project <id>')
    .requiredOption('--id <definitionId>')
    .action(async (opts: ApiOptions & { project: string; id: string }) => {
      const deleted = await LoggedIn.open(opts.api).rpc.model.delete.mutate({ projectId: opts.project, id: opts.id });
      printResult(deleted, !!opts.json, () => `removed ${deleted.id}`);
    });
}
