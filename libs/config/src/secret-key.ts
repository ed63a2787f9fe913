import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { repoRoot } from './repo-root';

/** AES-256 wants 32 bytes; `SPANLOG_SECRET_KEY` is them in base64 (`openssl rand -base64 32`). */
export const SECRET_KEY_BYTES = 32;

/** Where an install without `SPANLOG_SECRET_KEY` (development, test) keeps the key it made, beside the demo tenant. */
export const LOCAL_SECRET_KEY_FILE = resolve(repoRoot(), '.spanlog', 'secret.key');

/** The key `text` holds (32 bytes in standard base64), or null when it holds none. */
export function parseSecretKey(text: string): Buffer | null {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, 'base64');
  // Buffer.from skips what is not base64; only an exact round trip is the key that was meant.
  return key.length === SECRET_KEY_BYTES && key.toString('base64') === trimmed ? key : null;
}

function readKeyFile(file: string): Buffer | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const key = parseSecretKey(text);
  if (!key) throw new Error(`${file} does not hold 32 bytes in base64`);
  return key;
}

/**
 * The key kept in `file`, made (mode 0600) the first time. It is linked into place from a
 * file of its own, so that two processes starting at once (the API and the processor) both
 * end up with the one that got there first.
 */
export function localSecretKey(file: string): Buffer {
  const existing = readKeyFile(file);
  if (existing) return existing;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, `${randomBytes(SECRET_KEY_BYTES).toString('base64')}\n`, { mode: 0o600 });
  try {
    linkSync(draft, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(draft);
  }
  return readKeyFile(file) as Buffer;
}
