import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sessionFilePath } from './session-file';

/** The project a user last opened (TUI) or read (data commands), remembered per API and user. */
export interface LastProject {
  api: string;
  userId: string;
  projectId: string;
}

/** Beside the login session file: `…/spanlog/last-project.json`. */
export const lastProjectPath = (sessionPath: string = sessionFilePath()): string => join(dirname(sessionPath), 'last-project.json');

/** The remembered project of this user on this API; null when none (or the file is unreadable: it is only a convenience). */
export function readLastProject(api: string, userId: string, path: string = lastProjectPath()): string | null {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<LastProject> | null;
    return value?.api === api && value.userId === userId && typeof value.projectId === 'string' ? value.projectId : null;
  } catch {
    return null;
  }
}

/** Writes it; a failure is ignored, since remembering is a convenience that must never stop a command or the TUI. */
export function rememberLastProject(last: LastProject, path: string = lastProjectPath()): void {
  try {
    writeLastProject(last, path);
  } catch {
    // Next time the user chooses again.
  }
}

export function writeLastProject(last: LastProject, path: string = lastProjectPath()): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(last)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

/** Why a project was chosen without asking: said to the user beside its name. */
export type ProjectReason = 'asked' | 'only' | 'last';

/**
 * The project to open without asking: the one asked for (`--project`), else the user's only
 * project, else the last one used when it is still theirs; null when the user must choose.
 */
export function startingProject<T extends { project: { id: string } }>(
  choices: readonly T[],
  asked: string | undefined,
  last: string | null,
): { choice: T; reason: ProjectReason } | null {
  if (asked !== undefined) {
    const choice = choices.find((c) => c.project.id === asked);
    return choice ? { choice, reason: 'asked' } : null;
  }
  if (choices.length === 1) return { choice: choices[0]!, reason: 'only' };
  const remembered = last === null ? undefined : choices.find((c) => c.project.id === last);
  return remembered ? { choice: remembered, reason: 'last' } : null;
}
