import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import type { AuthSession } from './api-client';
import { CliError } from './output';

/** The login kept between commands: the API it belongs to and SPEC 2.5's session. */
export interface StoredSession extends AuthSession {
  api: string;
}

/**
 * `$XDG_CONFIG_HOME/spanlog/session.json`, or `~/.config/spanlog/session.json` when that
 * variable is empty (CONTRACT "Command line"); a relative value is ignored, as the XDG
 * base directory specification asks.
 */
export function sessionFilePath(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const xdg = env.XDG_CONFIG_HOME?.trim();
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, '.config'), 'spanlog', 'session.json');
}

const isSession = (value: unknown): value is StoredSession => {
  const s = value as Partial<StoredSession> | null;
  return (
    !!s &&
    typeof s.api === 'string' &&
    typeof s.access_token === 'string' &&
    typeof s.refresh_token === 'string' &&
    typeof s.expires_at === 'number' &&
    typeof s.user?.id === 'string' &&
    typeof s.user?.email === 'string'
  );
};

export function readSession(path: string = sessionFilePath()): StoredSession | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = null;
  }
  if (!isSession(value)) throw new CliError(`${path} does not hold a Spanlog session; run spanlog login again`);
  return value;
}

/**
 * Written under a temporary name created with mode 0600 and then renamed, so the tokens are
 * never readable by others, not even for a moment, and an interrupted write never leaves
 * half a file behind.
 */
export function writeSession(session: StoredSession, path: string = sessionFilePath()): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  rmSync(temporary, { force: true });
  writeFileSync(temporary, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(temporary, path);
}

export function removeSession(path: string = sessionFilePath()): void {
  rmSync(path, { force: true });
}
