import { createHash, randomBytes } from 'node:crypto';

/** Recognisable prefix, so secret scanners and people can tell a Spanlog key at a glance. */
export const API_KEY_PREFIX = 'sl_';
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;
const API_KEY_SHAPE = /^sl_[A-Za-z0-9_-]{43}$/;

export interface NewApiKey {
  secret: string;
  hash: string;
  prefix: string;
}

export function generateApiKey(): NewApiKey {
  const secret = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { secret, hash: hashApiKey(secret), prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/** Keys carry 256 random bits, so a fast hash is enough: no salt or stretching needed. */
export const hashApiKey = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export const looksLikeApiKey = (token: string): boolean => API_KEY_SHAPE.test(token);
