import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PASSWORD, type Tenant, bootstrap } from './api';
import { type Stack, runCli, startStack } from './stack';

/** tmux, installed from Debian's package when missing and possible; otherwise one clear line. */
export function ensureTmux(): void {
  if (spawnSync('tmux', ['-V']).status === 0) return;
  const installed = spawnSync('apt-get', ['install', '-y', '-qq', 'tmux'], {
    stdio: 'ignore',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (installed.status !== 0 || spawnSync('tmux', ['-V']).status !== 0) {
    throw new Error('the terminal UI test needs tmux and could not install it: run `apt-get install -y tmux` as root');
  }
}

export interface TerminalUser {
  /** A directory of its own: the CLI's config is under it, and panes start in it. */
  dir: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A user at a terminal after `spanlog login` as `email`: no API key in the environment, and
 * CI=true as CI sets it (Ink then draws only the last frame unless the TUI clears it).
 */
export async function loggedInTerminal(stack: Stack, email: string): Promise<TerminalUser> {
  const dir = mkdtempSync(join(tmpdir(), 'spanlog-tui-'));
  const env: NodeJS.ProcessEnv = { ...stack.env, XDG_CONFIG_HOME: join(dir, 'config'), CI: 'true' };
  delete env.SPANLOG_API_KEY;
  const login = await runCli(['login', '--email', email, '--password', PASSWORD, '--api', stack.baseUrl], env);
  if (login.code !== 0) throw new Error(`spanlog login failed: ${login.stderr}`);
  return { dir, env };
}

/** What a TUI spec works with; `pane` is the TUI it runs, killed after the spec. */
export interface TuiSpec extends TerminalUser {
  stack: Stack;
  tenant: Tenant;
  pane?: TmuxPane;
}

/**
 * Before a describe block's tests: tmux, a stack (with `stackEnv`), `email`'s organization
 * and project, and a terminal logged in as `email`; after them, the pane killed and the
 * terminal's directory and the stack gone. The fields are set once its beforeAll has run.
 */
export function useTuiSpec(email: string, org: string, project: string, stackEnv?: NodeJS.ProcessEnv): TuiSpec {
  const spec = {} as TuiSpec;
  beforeAll(async () => {
    ensureTmux();
    spec.stack = await startStack(stackEnv);
    spec.tenant = await bootstrap(spec.stack, email, org, project);
    Object.assign(spec, await loggedInTerminal(spec.stack, email));
  }, 120_000);
  afterAll(async () => {
    spec.pane?.kill();
    if (spec.dir) rmSync(spec.dir, { recursive: true, force: true });
    await spec.stack?.stop();
  });
  return spec;
}

/**
 * A program in a detached tmux pane of a fixed size, on a tmux server of its own (its own
 * socket), driven by send-keys and read by capture-pane, as a user at a terminal would.
 */
export class TmuxPane {
  private constructor(
    private readonly socket: string,
    readonly columns: number,
    readonly rows: number,
  ) {}

  /** Runs `command` (a shell line) in a `columns`×`rows` pane with exactly `env`. */
  static start(command: string, env: NodeJS.ProcessEnv, dir: string, columns = 80, rows = 24): TmuxPane {
    const pane = new TmuxPane(`spanlog-test-${randomBytes(4).toString('hex')}`, columns, rows);
    // The environment goes through a script: a tmux server passes its own environment to panes, not the client's.
    const script = join(dir, 'pane.sh');
    const exports = Object.entries(env)
      .filter(([name, value]) => value !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      .map(([name, value]) => `export ${name}=${shellQuote(value as string)}`);
    writeFileSync(script, [...exports, 'export TERM=xterm-256color', command, ''].join('\n'), { mode: 0o700 });
    pane.tmux('new-session', '-d', '-s', 'main', '-x', String(columns), '-y', String(rows), `bash ${shellQuote(script)}`);
    return pane;
  }

  /** Keys by tmux's names (`Enter`, `Escape`, `Down`, `q`). */
  keys(...names: string[]): void {
    this.tmux('send-keys', '-t', 'main', ...names);
  }

  /**
   * Text typed as it is into a field, then Enter once the screen shows it. Sent at once, on a
   * loaded machine the program can read both in one chunk, which Ink takes as text, not as
   * Enter: the field kept the text and was never submitted.
   */
  async submit(text: string): Promise<void> {
    this.tmux('send-keys', '-t', 'main', '-l', text);
    await this.waitForText(text);
    this.keys('Enter');
  }

  /** The screen as text, one entry a line. */
  screen(): string[] {
    return this.tmux('capture-pane', '-p', '-t', 'main').replace(/\n$/, '').split('\n');
  }

  /** A pane format variable (`alternate_on`, `cursor_flag`). */
  display(format: string): string {
    return this.tmux('display-message', '-p', '-t', 'main', format).trim();
  }

  /** Polls the screen until `done` holds; fails after `timeoutMs` showing the last screen. */
  async waitFor(what: string, done: (screen: string[]) => boolean, timeoutMs = 30_000): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (done(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`the screen did not show ${what} within ${timeoutMs} ms; it shows:\n${screen.join('\n')}`);
      await sleep(100);
    }
  }

  /** Waits until some line of the screen holds `text`. */
  waitForText(text: string, timeoutMs?: number): Promise<string[]> {
    return this.waitFor(JSON.stringify(text), (screen) => screen.some((line) => line.includes(text)), timeoutMs);
  }

  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { stdio: 'ignore' });
  }

  private tmux(...args: string[]): string {
    const res = spawnSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`tmux ${args[0]} failed: ${res.stderr.trim()}`);
    return res.stdout;
  }
}

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
