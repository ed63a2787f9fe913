import type { Command } from 'commander';
import { printResult, table } from '../output';
import { LoggedIn } from '../session';
import { type ApiOptions, apiCommand } from './api-command';

export function registerKeysCommands(program: Command): void {
  const keys = program.command('keys').description("a project's API keys (needs a login)");

  apiCommand(keys, 'create', 'make an API key; its secret is shown this once')
    .requiredOption('--project <id>')
    .requiredOption('--name <name>')
    .action(async (opts: ApiOptions & { project: string; name: string }) => {
      const key = await LoggedIn.open(opts.api).rpc.apiKey.create.mutate({ projectId: opts.project, name: opts.name });
      const result = { id: key.id, name: key.name, prefix: key.prefix, apiKey: key.apiKey, createdAt: key.createdAt };
      printResult(result, !!opts.json, () => `${key.apiKey}\n(shown once; id ${key.id}, name ${key.name})`);
    });

  apiCommand(keys, 'list', 'API keys by prefix, name, creation and last use')
    .requiredOption('--project <id>')
    .action(async (opts: ApiOptions & { project: string }) => {
      const listed = await LoggedIn.open(opts.api).rpc.apiKey.list.query({ projectId: opts.project });
      printResult(listed, !!opts.json, () =>
        table(
          listed.map((k) => [
            k.id,
            `${k.prefix}…`,
            k.name,
            `created ${k.createdAt}`,
            `last used ${k.lastUsedAt ?? 'never'}`,
            k.revokedAt ? `revoked ${k.revokedAt}` : 'active',
          ]),
        ),
      );
    });

  apiCommand(keys, 'revoke', 'revoke an API key: it is refused from then on')
    .requiredOption('--project <id>')
    .requiredOption('--id <id>')
    .action(async (opts: ApiOptions & { project: string; id: string }) => {
      const result = await LoggedIn.open(opts.api).rpc.apiKey.revoke.mutate({ projectId: opts.project, id: opts.id });
      printResult(result, !!opts.json, () => `revoked ${result.id}`);
    });
}
