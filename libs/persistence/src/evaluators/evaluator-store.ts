import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import {
  type Evaluator,
  type EvaluatorFilter,
  type EvaluatorKind,
  type EvaluatorPatch,
  type EvaluatorSettings,
  type EvaluatorTarget,
  type EvaluatorWithSecret,
  type JudgeSettings,
  storedFilter,
  validationError,
} from '@app/domain';
import { returnedRows } from '../query-result';
import { type SecretBox, SecretBoxError } from '../secrets/secret-box';
import {
  type EvaluatorSecrets,
  type StoredSecrets,
  isPlaintext,
  newSigningSecret,
  openHeaders,
  openSecrets,
  sealHeaders,
  sealSigningSecret,
} from './evaluator-secrets';

interface EvaluatorRow extends StoredSecrets {
  project_id: string;
  name: string;
  kind: EvaluatorKind;
  url: string | null;
  judge: JudgeSettings | null;
  timeout_ms: number;
  retries: number;
  filter: EvaluatorFilter;
  enabled: boolean;
  target: EvaluatorTarget;
  quiet_seconds: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, project_id, name, kind, url, judge, headers, headers_sealed, signing_secret_sealed, timeout_ms, retries, filter, enabled, target, quiet_seconds, created_at, updated_at';
/** The migration's UNIQUE (project_id, name), under the name Postgres gives it. */
const UNIQUE_NAME = 'evaluators_project_id_name_key';
const UNIQUE_VIOLATION = '23505';

const toEvaluator = (box: SecretBox, row: EvaluatorRow): Evaluator => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  kind: row.kind,
  url: row.url,
  judge: row.judge,
  headers: openHeaders(box, row),
  timeoutMs: row.timeout_ms,
  retries: row.retries,
  filter: storedFilter(row.filter),
  enabled: row.enabled,
  target: row.target,
  quietSeconds: row.quiet_seconds,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** The unique name is the database's rule; here it becomes the message a client can act on. */
async function uniqueName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const { code, constraint } = err as { code?: string; constraint?: string };
    if (code === UNIQUE_VIOLATION && constraint === UNIQUE_NAME)
      throw validationError(`name: an evaluator named "${name}" already exists in this project`);
    throw err;
  }
}

/**
 * Webhook evaluator configurations per project: plain queries, no access rules (the services
 * hold those). Header values and signing secrets are sealed here on the way in and opened on
 * the way out (SecretBox); a row still in plaintext (written by an older replica) is sealed
 * before it is read.
 */
export class EvaluatorStore {
  constructor(
    private readonly db: DataSource,
    private readonly box: SecretBox,
  ) {}

  /**
   * What the API and the processor do before they serve: check that the key opens what is
   * stored, so that a changed or lost SPANLOG_SECRET_KEY stops the process with a message rather
   * than failing every call, then seal every row still in plaintext (a migration has no key).
   * In that order: a wrong key must not seal anything. Returns how many rows it sealed.
   */
  async prepare(): Promise<number> {
    const [sample]: StoredSecrets[] = await this.db.query(
      'SELECT id, headers, headers_sealed, signing_secret_sealed FROM evaluators WHERE headers_sealed IS NOT NULL ORDER BY updated_at DESC LIMIT 1',
    );
    if (sample) {
      try {
        openSecrets(this.box, sample);
      } catch (err) {
        if (!(err instanceof SecretBoxError)) throw err;
        throw new Error(
          'SPANLOG_SECRET_KEY does not open the evaluator secrets stored in this database: it is not the key they were sealed with. ' +
            'Start with that key again (or, in development, the .spanlog/secret.key that made them); without it, delete and recreate the evaluators.',
        );
      }
    }
    return this.db.transaction((m) => this.sealPlaintext(m));
  }

  /**
   * The secrets of evaluator `id` for a call, sealing the row first if a replica of an older
   * version stored it in plaintext. Throws SecretBoxError when they do not open.
   */
  secrets(id: string): Promise<EvaluatorSecrets | null> {
    return this.db.transaction(async (m) => {
      const select = () =>
        m.query('SELECT id, headers, headers_sealed, signing_secret_sealed FROM evaluators WHERE id = $1', [id]) as Promise<
          StoredSecrets[]
        >;
      let [row] = await select();
      if (row && isPlaintext(row)) {
        await this.sealPlaintext(m, { id });
        [row] = await select();
      }
      return row ? openSecrets(this.box, row) : null;
    });
  }

  create(projectId: string, s: EvaluatorSettings): Promise<EvaluatorWithSecret> {
    return uniqueName(s.name, async () => {
      // The id is chosen here because the sealed values are bound to it.
      const id = randomUUID();
      const signingSecret = newSigningSecret();
      const [row]: EvaluatorRow[] = await this.db.query(
        `INSERT INTO evaluators (id, project_id, name, url, headers_sealed, signing_secret_sealed, timeout_ms, retries, filter, enabled, kind, judge, target, quiet_seconds)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12::jsonb, $13, $14) RETURNING ${COLUMNS}`,
        [
          id,
          projectId,
          s.name,
          s.url,
          sealHeaders(this.box, id, s.headers),
          sealSigningSecret(this.box, id, signingSecret),
          s.timeoutMs,
          s.retries,
          JSON.stringify(s.filter),
          s.enabled,
          s.kind,
          s.judge && JSON.stringify(s.judge),
          s.target,
          s.quietSeconds,
        ],
      );
      return { ...toEvaluator(this.box, row), signingSecret };
    });
  }

  list(projectId: string): Promise<Evaluator[]> {
    return this.sealedFirst(projectId, async (m) => {
      const rows: EvaluatorRow[] = await m.query(`SELECT ${COLUMNS} FROM evaluators WHERE project_id = $1 ORDER BY name, id`, [projectId]);
      return rows.map((row) => toEvaluator(this.box, row));
    });
  }

  /**
   * Null when the project has no such evaluator. A field left out keeps its value; `filter`
   * members merge. `updatedAt` always moves, by at least the millisecond its ISO form shows.
   */
  update(projectId: string, id: string, patch: EvaluatorPatch): Promise<Evaluator | null> {
    return uniqueName(patch.name, () =>
      this.sealedFirst(projectId, async (m) => {
        const result = await m.query(
          `UPDATE evaluators SET
             name = coalesce($3, name),
             url = coalesce($4, url),
             headers_sealed = coalesce($5, headers_sealed),
             timeout_ms = coalesce($6, timeout_ms),
             retries = coalesce($7, retries),
             filter = filter || $8::jsonb,
             enabled = coalesce($9, enabled),
             judge = coalesce($10::jsonb, judge),
             target = coalesce($11, target),
             quiet_seconds = coalesce($12, quiet_seconds),
             updated_at = greatest(now(), updated_at + interval '1 millisecond')
           WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
          [
            projectId,
            id,
            patch.name ?? null,
            patch.url ?? null,
            patch.headers ? sealHeaders(this.box, id, patch.headers) : null,
            patch.timeoutMs ?? null,
            patch.retries ?? null,
            JSON.stringify(patch.filter ?? {}),
            patch.enabled ?? null,
            patch.judge ? JSON.stringify(patch.judge) : null,
            patch.target ?? null,
            patch.quietSeconds ?? null,
          ],
        );
        const [row] = returnedRows<EvaluatorRow>(result);
        return row ? toEvaluator(this.box, row) : null;
      }),
    );
  }

  /** A new signing secret, replacing the old one at once; null when the project has no such evaluator. */
  rotateSecret(projectId: string, id: string): Promise<EvaluatorWithSecret | null> {
    return this.sealedFirst(projectId, async (m) => {
      const signingSecret = newSigningSecret();
      const result = await m.query(
        `UPDATE evaluators SET signing_secret_sealed = $3, updated_at = greatest(now(), updated_at + interval '1 millisecond')
          WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
        [projectId, id, sealSigningSecret(this.box, id, signingSecret)],
      );
      const [row] = returnedRows<EvaluatorRow>(result);
      return row ? { ...toEvaluator(this.box, row), signingSecret } : null;
    });
  }

  /** The project's evaluator `id`, or null. */
  get(projectId: string, id: string): Promise<Evaluator | null> {
    return this.sealedFirst(projectId, async (m) => {
      const [row]: EvaluatorRow[] = await m.query(`SELECT ${COLUMNS} FROM evaluators WHERE project_id = $1 AND id = $2`, [projectId, id]);
      return row ? toEvaluator(this.box, row) : null;
    });
  }

  /** False when the project has no such evaluator. */
  async delete(projectId: string, id: string): Promise<boolean> {
    const result = await this.db.query('DELETE FROM evaluators WHERE project_id = $1 AND id = $2 RETURNING id', [projectId, id]);
    return returnedRows(result).length > 0;
  }

  /** Runs `work` in a transaction after sealing the project's rows still in plaintext. */
  private sealedFirst<T>(projectId: string, work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(async (m) => {
      await this.sealPlaintext(m, { projectId });
      return work(m);
    });
  }

  /**
   * Seals the plaintext rows `where` selects (all of them without it) and gives each a signing
   * secret if it has none; returns how many it sealed. Rows are locked first, so two processes sealing at once
   * seal each row once. Call inside a transaction.
   */
  private async sealPlaintext(m: EntityManager, where: { projectId: string } | { id: string } | null = null): Promise<number> {
    const [filter, params]: [string, string[]] = !where
      ? ['', []]
      : 'id' in where
        ? ['AND id = $1', [where.id]]
        : ['AND project_id = $1', [where.projectId]];
    const rows: { id: string; headers: Record<string, string> }[] = await m.query(
      `SELECT id, headers FROM evaluators WHERE headers_sealed IS NULL ${filter} ORDER BY id FOR UPDATE`,
      params,
    );
    for (const row of rows) {
      await m.query(
        'UPDATE evaluators SET headers = NULL, headers_sealed = $2, signing_secret_sealed = coalesce(signing_secret_sealed, $3) WHERE id = $1',
        [row.id, sealHeaders(this.box, row.id, row.headers), sealSigningSecret(this.box, row.id, newSigningSecret())],
      );
    }
    return rows.length;
  }
}
