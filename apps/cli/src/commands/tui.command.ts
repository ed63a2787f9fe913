import type { Command } from 'commander';
import { readLastProject, rememberLastProject } from '../last-project';
import { CliError } from '../output';
import { LoggedIn } from '../session';
import { SpanlogRpc } from '../tui/spanlog-rpc';
import { apiCommand } from './api-command';

interface TuiOptions {
  api?: string;
  project?: string;
  interval: string;
}

/** Exit code when standard input or output is not a terminal (documented in docs/cli.md). */
export const NOT_A_TERMINAL_EXIT_CODE = 2;

export const NOT_A_TERMINAL_MESSAGE =
  'spanlog tui needs a terminal on standard input and output; for scripts use the plain commands: spanlog traces list, spanlog keys list, spanlog usage, spanlog projects, spanlog alerts list (each with --json)';

function pollInterval(text: string): number {
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 250 || ms > 60_000)
    throw new CliError(`--interval: "${text}" must be a whole number of milliseconds from 250 to 60000`);
  return ms;
}

export function registerTuiCommand(program: Command): void {
  apiCommand(
    program,
    'tui',
    'the terminal UI: projects, live traces, span trees, API keys, usage and monitors (needs a login); opens on your only project, or the last one you opened',
  )
    .option('--project <id>', 'open this project at once')
    .option('--interval <ms>', 'how often live screens read again', '2000')
    .action(async (opts: TuiOptions) => {
      if (!process.stdout.isTTY || !process.stdin.isTTY) {
        process.stderr.write(`${NOT_A_TERMINAL_MESSAGE}\n`);
        process.exit(NOT_A_TERMINAL_EXIT_CODE);
      }
      const pollMs = pollInterval(opts.interval);
      const me = LoggedIn.open(opts.api);
      const [api, userId] = [me.api.baseUrl, me.userId];
      // Loaded only here, so the other commands do not load React.
      const { runTui } = await import('../tui/run.js');
      const code = await runTui({
        rpc: new SpanlogRpc(me),
        pollMs,
        projectId: opts.project,
        lastProjectId: readLastProject(api, userId),
        onProjectOpened: (choice) => rememberLastProject({ api, userId, projectId: choice.project.id }),
      });
      // Requests still in flight when the user quit must not hold the terminal.
      process.exit(code);
    });
}
