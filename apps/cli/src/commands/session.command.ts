import type { Command } from 'commander';
import { ApiClient, DEFAULT_API_URL } from '../api-client';
import { CliError, printResult } from '../output';
import { readPassword } from '../prompt';
import { LoggedIn, SessionEndedError } from '../session';
import { removeSession, writeSession } from '../session-file';
import { type ApiOptions, apiCommand } from './api-command';

export function registerSessionCommands(program: Command): void {
  program
    .command('login')
    .description('log in; the session is kept in $XDG_CONFIG_HOME/spanlog/session.json (mode 0600)')
    .requiredOption('--email <email>')
    .option('--password <password>', 'asked for when absent (read from stdin when it is not a terminal)')
    .option('--api <url>', `API base URL (default ${DEFAULT_API_URL})`)
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (opts: ApiOptions & { email: string; password?: string }) => {
      const password = opts.password ?? (await readPassword('Password: '));
      if (!password) throw new CliError('no password given');
      const api = new ApiClient(opts.api ?? DEFAULT_API_URL);
      const session = await api.login(opts.email, password);
      writeSession({ ...session, api: api.baseUrl });
      printResult({ user: session.user, api: api.baseUrl }, !!opts.json, () => `logged in as ${session.user.email} at ${api.baseUrl}`);
    });

  apiCommand(program, 'logout', 'end the session on the server and forget it here').action(async (opts: ApiOptions) => {
    const me = LoggedIn.open(opts.api);
    try {
      await me.call((token) => me.api.logout(token));
    } catch (err) {
      // Already over on the server: forgetting it here is all that is left to do.
      if (!(err instanceof SessionEndedError)) throw err;
    }
    removeSession();
    printResult({ success: true }, !!opts.json, () => 'logged out');
  });

  apiCommand(program, 'whoami', 'the logged-in user and their organizations').action(async (opts: ApiOptions) => {
    const me = LoggedIn.open(opts.api);
    const user = await me.rpc.user.me.query();
    const organizations = await me.rpc.organization.list.query();
    printResult({ id: user.id, email: user.email, organizations }, !!opts.json, () =>
      [`${user.email} (${user.id})`, ...organizations.map((o) => `  ${o.id}  ${o.name}  ${o.plan}  ${o.role}`)].join('\n'),
    );
  });
}
