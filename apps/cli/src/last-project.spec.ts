import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastProjectPath, readLastProject, startingProject, writeLastProject } from './last-project';

describe('last project', () => {
  const choice = (id: string) => ({ project: { id } });
  const [a, b] = [choice('a'), choice('b')];

  it("opens the project asked for, else the only one, else the last used while it is still the user's", () => {
    expect(startingProject([a, b], 'b', 'a')).toEqual({ choice: b, reason: 'asked' });
    expect(startingProject([a, b], 'c', 'a')).toBeNull();
    expect(startingProject([a], undefined, null)).toEqual({ choice: a, reason: 'only' });
    expect(startingProject([a], undefined, 'b')).toEqual({ choice: a, reason: 'only' });
    expect(startingProject([a, b], undefined, 'b')).toEqual({ choice: b, reason: 'last' });
    expect(startingProject([a, b], undefined, 'gone')).toBeNull();
    expect(startingProject([a, b], undefined, null)).toBeNull();
    expect(startingProject([], undefined, null)).toBeNull();
  });

  it('is kept beside the session file, mode 0600, per API and user', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanlog-last-'));
    try {
      const path = lastProjectPath(join(dir, 'spanlog', 'session.json'));
      expect(path).toBe(join(dir, 'spanlog', 'last-project.json'));
      expect(readLastProject('http://api', 'u1', path)).toBeNull();
      writeLastProject({ api: 'http://api', userId: 'u1', projectId: 'p1' }, path);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(readLastProject('http://api', 'u1', path)).toBe('p1');
      expect(readLastProject('http://api', 'u2', path)).toBeNull();
      expect(readLastProject('http://other', 'u1', path)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
