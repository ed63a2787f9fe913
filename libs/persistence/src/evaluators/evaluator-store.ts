import type { DataSource } from 'typeorm';
import { type Evaluator, type EvaluatorFilter, type EvaluatorPatch, type EvaluatorSettings, validationError } from '@app/domain';
import { returnedRows } from '../query-result';

interface EvaluatorRow {
  id: string;
  project_id: string;
  name: string;
  url: string;
  headers: Record<string, string>;
  timeout_ms: number;
  retries: number;
  filter: EvaluatorFilter;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, project_id, name, url, headers, timeout_ms, retries, filter, enabled, created_at, updated_at';
/** The migration's UNIQUE (project_id, name), under the name Postgres gives it. */
const UNIQUE_NAME = 'evaluators_project_id_name_key';
const UNIQUE_VIOLATION = '23505';

const toEvaluator = (row: EvaluatorRow): Evaluator => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  url: row.url,
  headers: row.headers,
  timeoutMs: row.timeout_ms,
  retries: row.retries,
  filter: row.filter,
  enabled: row.enabled,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** The unique name is the database's rule; here it becomes the message a client can act on. */
async function uniqueName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const { code, constraint } = err as { code?: string; constraint?: string };
    if (code === UNIQUE_VIOLATION && constraint === UNIQUE_NAME) throw validationError(`name: an evaluator named "${name}" already exists in this project`);
    throw err;
  }
}

/** Webhook evaluator configurations per project: plain queries, no access rules (the services hold those). */
export class EvaluatorStore {
  constructor(private readonly db: DataSource) {}

  create(projectId: string, s: EvaluatorSettings): Promise<Evaluator> {
    return uniqueName(s.name, async () => {
      const [row]: EvaluatorRow[] = await this.db.query(
        `INSERT INTO evaluators (project_id, name, url, headers, timeout_ms, retries, filter, enabled)
         VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7::jsonb, $8) RETURNING ${COLUMNS}`,
        [projectId, s.name, s.url, JSON.stringify(s.headers), s.timeoutMs, s.retries, JSON.stringify(s.filter), s.enabled],
      );
      return toEvaluator(row);
    });
  }

  async list(projectId: string): Promise<Evaluator[]> {
    const rows: EvaluatorRow[] = await this.db.query(`SELECT ${COLUMNS} FROM evaluators WHERE project_id = $1 ORDER BY name, id`, [projectId]);
    return rows.map(toEvaluator);
  }

  /**
   * Null when the project has no such evaluator. A field left out keeps its value; `filter`
   * members merge. `updatedAt` always moves, by at least the millisecond its ISO form shows.
   */
  update(projectId: string, id: string, patch: EvaluatorPatch): Promise<Evaluator | null> {
    return uniqueName(patch.name, async () => {
      const result = await this.db.query(
        `UPDATE evaluators SET
           name = coalesce($3, name),
           url = coalesce($4, url),
           headers = coalesce($5::jsonb, headers),
           timeout_ms = coalesce($6, timeout_ms),
           retries = coalesce($7, retries),
           filter = filter || $8::jsonb,
           enabled = coalesce($9, enabled),
           updated_at = greatest(now(), updated_at + interval '1 millisecond')
         WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
        [
          projectId,
          id,
          patch.name ?? null,
          patch.url ?? null,
          patch.headers ? JSON.stringify(patch.headers) : null,
          patch.timeoutMs ?? null,
          patch.retries ?? null,
          JSON.stringify(patch.filter ?? {}),
          patch.enabled ?? null,
        ],
      );
      const [row] = returnedRows<EvaluatorRow>(result);
      return row ? toEvaluator(row) : null;
    });
  }

  /** False when the project has no such evaluator. */
  async delete(projectId: string, id: string): Promise<boolean> {
    const result = await this.db.query('DELETE FROM evaluators WHERE project_id = $1 AND id = $2 RETURNING id', [projectId, id]);
    return returnedRows(result).length > 0;
  }
}
