import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** The repository root: the nearest folder with a package.json, from source or from dist/. */
export function repoRoot(from = __dirname): string {
  for (let dir = from; ; dir = resolve(dir, '..')) {
    if (existsSync(resolve(dir, 'package.json'))) return dir;
    if (dir === resolve(dir, '..')) throw new Error(`no package.json above ${from}`);
  }
}
