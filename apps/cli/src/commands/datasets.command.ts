import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { itemRequests, readDatasetImport } from '@app/domain';
import { CliError, printResult, table } from '../output';
import type { RpcOutputs } from '../rpc-client';
import { type KeyOptions, type ReadOptions, keyClient, keyCommand, readAccess, readCommand } from './key-command';

type Outputs = RpcOutputs['dataset'];
type PageOptions = ReadOptions & { page?: string; limit?: string };

const PATH = '/api/v1/datasets';
const path = (...parts: string[]) => [PATH, ...parts.map(encodeURIComponent)].join('/');

/** A page option as the number it is when it is digits; anything else as typed, for the API to refuse naming the field. */
const pageOf = (opts: { page?: string; limit?: string }) => ({
  ...(opts.page !== undefined && { page: /^\d+$/.test(opts.page) ? Number(opts.page) : opts.page }),
  ...(opts.limit !== undefined && { limit: /^\d+$/.test(opts.limit) ? Number(opts.limit) : opts.limit }),
});
/** The router's input types are those of the values once read (`page: number`), hence this one assertion. */
const asTyped = <Input>(input: Record<string, unknown>): Input => input as Input;

const more = (meta: { page: number; totalPages: number }) => (meta.page < meta.totalPages ? [`more: --page ${meta.page + 1}`] : []);
const shown = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? '' : text.length > 60 ? `${text.slice(0, 59)}…` : text;
};

/** The items of a JSONL file: one JSON object per line, blank lines skipped; the first line that is no object is named. */
export function readJsonl(text: string, file: string): unknown[] {
  const { lines, errors } = readDatasetImport(text, 'jsonl');
  if (errors.length) throw new CliError(`${file}:${errors[0].line}: ${errors[0].message}`);
  return lines.map((l) => l.item);
}

const scoreText = (scores: { name: string; value: unknown }[]) => scores.map((s) => `${s.name}=${shown(s.value)}`).join(' ');

export function describeRun(run: Outputs['run']): string {
  const a = run.aggregates;
  return [
    `${run.datasetName} / ${run.name}: ${a.count} items, latency p50 ${a.latencyMs.p50 ?? '-'} ms, p95 ${a.latencyMs.p95 ?? '-'} ms, cost ${a.totalCost ?? '-'}`,
    ...a.scores.map((s) => `  ${s.name}: mean ${s.mean} over ${s.count}`),
    ...run.scores.map((s) => `  ${s.name} (run): ${shown(s.value)}`),
    '',
    table(
      run.items.map((i) => [
        i.datasetItemId,
        i.traceId,
        shown(i.output),
        `${i.latencyMs ?? '-'} ms`,
        `${i.totalCost ?? '-'}`,
        scoreText(i.scores),
      ]),
    ),
    ...more(run.meta),
  ].join('\n');
}

export function registerDatasetsCommands(program: Command): void {
  const datasets = program
    .command('datasets')
    .description("a project's datasets and experiment runs (with an API key, or after spanlog login)");

  readCommand(datasets, 'list', 'datasets by name')
    .option('--page <n>', 'page, from 1')
    .option('--limit <n>', '1 to 100 (default 50)')
    .action(async (opts: PageOptions) => {
      const access = await readAccess(opts);
      const page: Outputs['list'] =
        access.kind === 'key'
          ? await access.api.get(PATH, access.key, { page: opts.page, limit: opts.limit })
          : await access.me.rpc.dataset.list.query(asTyped({ projectId: access.projectId, ...pageOf(opts) }));
      printResult(page, !!opts.json, () =>
        [table(page.data.map((d) => [d.name, d.id, d.description ?? '', d.updatedAt])), ...more(page.meta)].join('\n'),
      );
    });

  readCommand(datasets, 'get <name>', 'a dataset and a page of its items')
    .option('--version <iso>', 'the items as they were at this time')
    .option('--page <n>', 'page of items, from 1')
    .option('--limit <n>', 'items per page, 1 to 100 (default 50)')
    .action(async (name: string, opts: PageOptions & { version?: string }) => {
      const access = await readAccess(opts);
      const [dataset, items]: [Outputs['get'], Outputs['items']] =
        access.kind === 'key'
          ? await Promise.all([
              access.api.get<Outputs['get']>(path(name), access.key),
              access.api.get<Outputs['items']>(path(name, 'items'), access.key, {
                version: opts.version,
                page: opts.page,
                limit: opts.limit,
              }),
            ])
          : await Promise.all([
              access.me.rpc.dataset.get.query({ projectId: access.projectId, name }),
              access.me.rpc.dataset.items.query(asTyped({ projectId: access.projectId, name, version: opts.version, ...pageOf(opts) })),
            ]);
      const answer = { ...dataset, items: items.data, meta: items.meta };
      printResult(answer, !!opts.json, () =>
        [
          `${dataset.name} (${dataset.id}): ${items.meta.totalItems} items${dataset.description ? ` — ${dataset.description}` : ''}`,
          table(items.data.map((i) => [i.id, i.status, shown(i.input), shown(i.expectedOutput)])),
          ...more(items.meta),
        ].join('\n'),
      );
    });

  keyCommand(
    datasets,
    'push <name> <file>',
    'add or update items from a JSONL file (one item per line, upserted by id); creates the dataset',
  )
    .option('--description <text>', 'the dataset description')
    .action(async (name: string, file: string, opts: KeyOptions & { description?: string }) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        throw new CliError(`${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      const items = readJsonl(text, file);
      const { api, key } = keyClient(opts);
      await api.post(PATH, key, { name, description: opts.description });
      const ids: string[] = [];
      for (const request of itemRequests(items))
        ids.push(...(await api.post<{ ids: string[] }>(path(name, 'items'), key, { items: request })).ids);
      const answer = { dataset: name, accepted: ids.length, ids };
      printResult(answer, !!opts.json, () => `${ids.length} items pushed to ${name}`);
    });

  readCommand(datasets, 'runs <name>', "a dataset's experiment runs, newest first")
    .option('--page <n>', 'page, from 1')
    .option('--limit <n>', '1 to 100 (default 50)')
    .action(async (name: string, opts: PageOptions) => {
      const access = await readAccess(opts);
      const page: Outputs['runs'] =
        access.kind === 'key'
          ? await access.api.get(path(name, 'runs'), access.key, { page: opts.page, limit: opts.limit })
          : await access.me.rpc.dataset.runs.query(asTyped({ projectId: access.projectId, name, ...pageOf(opts) }));
      printResult(page, !!opts.json, () =>
        [table(page.data.map((r) => [r.name, r.id, r.createdAt, r.description ?? ''])), ...more(page.meta)].join('\n'),
      );
    });

  readCommand(
    datasets,
    'run <name> <runName>',
    "a run's results: per item its trace, output, latency, cost and scores; the run's means and percentiles",
  )
    .option('--page <n>', 'page of items, from 1')
    .option('--limit <n>', 'items per page, 1 to 1000 (default 1000)')
    .action(async (name: string, runName: string, opts: PageOptions) => {
      const access = await readAccess(opts);
      const run: Outputs['run'] =
        access.kind === 'key'
          ? await access.api.get(path(name, 'runs', runName), access.key, { page: opts.page, limit: opts.limit })
          : await access.me.rpc.dataset.run.query(asTyped({ projectId: access.projectId, name, runName, ...pageOf(opts) }));
      printResult(run, !!opts.json, () => describeRun(run));
    });
}
