import { randomBytes } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
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

export const sealHeaders = (box: SecretBox, id: string, headers: Record<string, string>): string => box.seal(JSON.stringify(headers), headersContext(id));

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

/**
 * Seals the plaintext rows `where` selects (all of them without it) and gives each a signing
 * secret if it has none; returns how many it sealed. Rows are locked first, so two processes sealing at once
 * seal each row once. Call inside a transaction.
 */
export async function sealPlaintextEvaluators(m: EntityManager, box: SecretBox, where: { projectId: string } | { id: string } | null = null): Promise<number> {
  const [filter, params]: [string, string[]] = !where ? ['', []] : 'id' in where ? ['AND id = $1', [where.id]] : ['AND project_id = $1', [where.projectId]];
  const rows: { id: string; headers: Record<string, string> }[] = await m.query(
    `SELECT id, headers FROM evaluators WHERE headers_sealed IS NULL ${filter} ORDER BY id FOR UPDATE`,
    params,
  );
  for (const row of rows) {
    await m.query('UPDATE evaluators SET headers = NULL, headers_sealed = $2, signing_secret_sealed = coalesce(signing_secret_sealed, $3) WHERE id = $1', [
      row.id,
      sealHeaders(box, row.id, row.headers),
      sealSigningSecret(box, row.id, newSigningSecret()),
    ]);
  }
  return rows.length;
}

/**
 * What the API and the processor do before they serve: check that the key opens what is
 * stored, so that a changed or lost SPANLOG_SECRET_KEY stops the process with a message rather
 * than failing every call, then seal every row still in plaintext (a migration has no key).
 * In that order: a wrong key must not seal anything. Returns how many rows it sealed.
 */
export async function prepareEvaluatorSecrets(db: DataSource, box: SecretBox): Promise<number> {
  const [sample]: StoredSecrets[] = await db.query(
    'SELECT id, headers, headers_sealed, signing_secret_sealed FROM evaluators WHERE headers_sealed IS NOT NULL ORDER BY updated_at DESC LIMIT 1',
  );
  if (sample) {
    try {
      openSecrets(box, sample);
    } catch (err) {
      if (!(err instanceof SecretBoxError)) throw err;
      throw new Error(
        'SPANLOG_SECRET_KEY does not open the evaluator secrets stored in this database: it is not the key they were sealed with. ' +
          'Start with that key again (or, in development, the .spanlog/secret.key that made them); without it, delete and recreate the evaluators.',
      );
    }
  }
  return db.transaction((m) => sealPlaintextEvaluators(m, box));
}

/**
 * The secrets of evaluator `id` for a call, sealing the row first if a replica of an older
 * version stored it in plaintext. Throws SecretBoxError when they do not open.
 */
export async function readEvaluatorSecrets(db: DataSource, box: SecretBox, id: string): Promise<EvaluatorSecrets | null> {
  return db.transaction(async (m) => {
    const select = () => m.query('SELECT id, headers, headers_sealed, signing_secret_sealed FROM evaluators WHERE id = $1', [id]) as Promise<StoredSecrets[]>;
    let [row] = await select();
    if (row && isPlaintext(row)) {
      await sealPlaintextEvaluators(m, box, { id });
      [row] = await select();
    }
    return row ? openSecrets(box, row) : null;
  });
}
