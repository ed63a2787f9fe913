import { randomBytes } from 'node:crypto';
import { type SecretBox, SecretBoxError } from '../secrets/secret-box';

/** What a webhook call needs and nobody else may read: the header values and the signing secret. */
export interface EvaluatorSecrets {
  headers: Record<string, string>;
  /** Standard Webhooks' form: `whsec_` and the base64 of the key. */
  signingSecret: string;
}

/** An evaluator row's secret columns: sealed, or from before they were (`headers` in plaintext, no secret). */
export interface StoredSecrets {
  id: string;
  headers: Record<string, string> | null;
  headers_sealed: string | null;
  signing_secret_sealed: string | null;
}

/** Bytes of a new signing secret (Standard Webhooks asks for 24 to 64). */
const SIGNING_SECRET_BYTES = 32;

export const newSigningSecret = (): string => `whsec_${randomBytes(SIGNING_SECRET_BYTES).toString('base64')}`;

// Each value is bound to its row and column: moved elsewhere, it does not open.
const headersContext = (id: string) => `evaluator:${id}:headers`;
const secretContext = (id: string) => `evaluator:${id}:signing-secret`;

export const sealHeaders = (box: SecretBox, id: string, headers: Record<string, string>): string =>
  box.seal(JSON.stringify(headers), headersContext(id));

export const sealSigningSecret = (box: SecretBox, id: string, secret: string): string => box.seal(secret, secretContext(id));

export const isPlaintext = (row: StoredSecrets): boolean => row.headers_sealed === null;

/** The header values of a sealed row; throws SecretBoxError when they do not open. */
export function openHeaders(box: SecretBox, row: StoredSecrets): Record<string, string> {
  if (row.headers_sealed === null) throw new SecretBoxError(`evaluator ${row.id} is not sealed yet`);
  return JSON.parse(box.open(row.headers_sealed, headersContext(row.id))) as Record<string, string>;
}

/** Both secrets of a sealed row; throws SecretBoxError when they do not open. */
export function openSecrets(box: SecretBox, row: StoredSecrets): EvaluatorSecrets {
  if (row.signing_secret_sealed === null) throw new SecretBoxError(`evaluator ${row.id} has no signing secret yet`);
  return { headers: openHeaders(box, row), signingSecret: box.open(row.signing_secret_sealed, secretContext(row.id)) };
}
