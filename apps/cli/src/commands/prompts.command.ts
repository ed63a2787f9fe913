import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { PromptTemplateSummary, PromptVersion } from '@app/domain';
import { CliError, printResult, table } from '../output';
import { type KeyOptions, keyClient, keyCommand } from './key-command';

const PATH = '/api/v1/prompt-templates';

/** The options of `prompts push`, as commander hands them over. */
export interface PushOptions extends KeyOptions {
  template?: string;
  file?: string;
  label: string[];
  config?: string;
  message?: string;
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`--file: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** A file holding a JSON array is a chat template (its messages); any other file is a text template, as it is. */
function templateOfFile(text: string): unknown {
  if (!text.trimStart().startsWith('[')) return text;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : text;
  } catch {
    return text;
  }
}

function configOption(value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let config: unknown;
  try {
    config = JSON.parse(value);
  } catch {
    throw new CliError('--config: must be a JSON object, e.g. \'{"model":"gpt-4o"}\'');
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw new CliError('--config: must be a JSON object, e.g. \'{"model":"gpt-4o"}\'');
  return config as Record<string, unknown>;
}

/**
 * The body of POST /api/v1/prompt-templates from `prompts push NAME` and its options: only
 * what was given. Names, labels and messages are checked by the API alone, whose message
 * names the field.
 */
export function promptPushBody(name: string, opts: PushOptions, read: (path: string) => string = readText): Record<string, unknown> {
  if ((opts.template === undefined) === (opts.file === undefined))
    throw new CliError(opts.template === undefined ? 'give --template or --file' : 'give --template or --file, not both');
  const body: Record<string, unknown> = {
    name,
    template: opts.file === undefined ? opts.template : templateOfFile(read(opts.file)),
    labels: opts.label.length ? opts.label : undefined,
    config: configOption(opts.config),
    commitMessage: opts.message,
  };
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

const heading = (v: PromptVersion): string => `${v.name} v${v.version} [${v.labels.join(', ')}]  ${v.createdAt}`;

/** A version as a person reads it: the heading, then the text or one line per message, then the config. */
export function describeVersion(v: PromptVersion): string {
  const template = typeof v.template === 'string' ? v.template : v.template.map((m) => `${m.role}: ${m.content}`).join('\n');
  return [
    heading(v),
    ...(v.commitMessage ? [`  ${v.commitMessage}`] : []),
    '',
    template,
    ...(Object.keys(v.config).length ? ['', `config: ${JSON.stringify(v.config)}`] : []),
  ].join('\n');
}

export function registerPromptsCommands(program: Command): void {
  const prompts = program.command('prompts').description("a project's prompt templates (needs an API key)");

  keyCommand(prompts, 'list', 'template names with their newest version and labels, by name')
    .option('--limit <n>', '1 to 100 (default 50)')
    .option('--cursor <cursor>', 'nextCursor of the previous page')
    .action(async (opts: KeyOptions & { limit?: string; cursor?: string }) => {
      const { api, key } = keyClient(opts);
      const page = await api.get<{ data: PromptTemplateSummary[]; meta: { nextCursor: string | null } }>(PATH, key, {
        limit: opts.limit,
        cursor: opts.cursor,
      });
      printResult(page, !!opts.json, () =>
        [
          table(page.data.map((t) => [t.name, `v${t.latestVersion}`, t.labels.join(','), t.updatedAt])),
          ...(page.meta.nextCursor ? [`more: --cursor ${page.meta.nextCursor}`] : []),
        ].join('\n'),
      );
    });

  keyCommand(prompts, 'get <name>', 'one version: the one labelled production, else the newest, unless --version or --label picks one')
    .option('--version <n>', 'this version')
    .option('--label <label>', 'the version with this label (latest: the newest)')
    .action(async (name: string, opts: KeyOptions & { version?: string; label?: string }) => {
      const { api, key } = keyClient(opts);
      const version = await api.get<PromptVersion>(PATH, key, { name, version: opts.version, label: opts.label });
      printResult(version, !!opts.json, () => describeVersion(version));
    });

  keyCommand(prompts, 'push <name>', 'store a new version of a template (version 1 of a new name)')
    .option('--template <text>', 'the template text')
    .option(
      '--file <path>',
      'read the template from a file: a JSON array of {role, content} messages is a chat template, anything else is text',
    )
    .option(
      '--label <label>',
      'a label to move to this version (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option('--config <json>', 'a JSON object stored with the version (model, parameters …)')
    .option('--message <text>', 'a commit message')
    .action(async (name: string, opts: PushOptions) => {
      const body = promptPushBody(name, opts);
      const { api, key } = keyClient(opts);
      const version = await api.post<PromptVersion>(PATH, key, body);
      printResult(version, !!opts.json, () => heading(version));
    });
}
