import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type StoredSession, readSession, removeSession, sessionFilePath, writeSession } from './session-file';

const session = (over: Partial<StoredSession> = {}): StoredSession => ({
  api: 'http://127.0.0.1:3000',
  access_token: 'a',
  refresh_token: 'r',
  expires_at: 1_800_000_000,
  user: { id: 'u', email: 'u@example.com' },
  ...over,
});

describe(sessionFilePath.name, () => {
  it.each([
    [{ XDG_CONFIG_HOME: '/xdg' }, '/xdg/spanlog/session.json'],
    [{ XDG_CONFIG_HOME: '' }, '/home/u/.config/spanlog/session.json'],
    [{}, '/home/u/.config/spanlog/session.json'],
    [{ XDG_CONFIG_HOME: 'relative/dir' }, '/home/u/.config/spanlog/session.json'],
  ])('resolves %p to %s', (env, expected) => {
    expect(sessionFilePath(env, '/home/u')).toBe(expected);
  });
});

describe(writeSession.name, () => {
  const dirs: string[] = [];
  const dir = () => {
    dirs.push(mkdtempSync(join(tmpdir(), 'spanlog-session-')));
    return dirs[dirs.length - 1];
  };

  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('writes a file only its owner can read, in a directory it creates, and reads it back', () => {
    const path = join(dir(), 'nested', 'spanlog', 'session.json');
    writeSession(session(), path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readSession(path)).toEqual(session());
  });

  it('keeps mode 0600 when it replaces a file that was readable by others', () => {
    const path = join(dir(), 'session.json');
    writeFileSync(path, '{}', { mode: 0o644 });
    writeSession(session({ access_token: 'b' }), path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readSession(path)?.access_token).toBe('b');
  });

  it('reads a missing file as no session, and a foreign file as an error', () => {
    const path = join(dir(), 'session.json');
    expect(readSession(path)).toBeNull();
    writeFileSync(path, '{"api": 1}');
    expect(() => readSession(path)).toThrow(/spanlog login/);
    removeSession(path);
    expect(readSession(path)).toBeNull();
  });
});
