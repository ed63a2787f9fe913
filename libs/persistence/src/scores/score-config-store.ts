import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import {
  type ScoreCategory,
  type ScoreConfig,
  type ScoreConfigSettings,
  type ScoreConfigsByName,
  configNameOf,
  validationError,
} from '@app/domain';
import { returnedRows } from '../query-result';

interface ScoreConfigRow {
  id: string;
  project_id: string;
  name: string;
  data_type: ScoreConfig['dataType'];
  min_value: number | null;
  max_value: number | null;
  categories: ScoreCategory[];
  description: string | null;
  archived: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, project_id, name, data_type, min_value, max_value, categories, description, archived, created_at, updated_at';
/** The migration's UNIQUE (project_id, name), under the name Postgres gives it. */
const UNIQUE_NAME = 'score_configs_project_id_name_key';
const UNIQUE_VIOLATION = '23505';

const toConfig = (row: ScoreConfigRow): ScoreConfig => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  dataType: row.data_type,
  minValue: row.min_value,
  maxValue: row.max_value,
  categories: row.categories,
  description: row.description,
  archived: row.archived,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** The unique name is the database's rule; here it becomes the message a client can act on. */
async function uniqueName<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const { code, constraint } = err as { code?: string; constraint?: string };
    if (code === UNIQUE_VIOLATION && constraint === UNIQUE_NAME)
      throw validationError(`name: a score config named "${name}" already exists in this project`);
    throw err;
  }
}

const settingsParams = (s: ScoreConfigSettings) => [
  s.name,
  s.dataType,
  s.minValue,
  s.maxValue,
  JSON.stringify(s.categories),
  s.description,
];

/**
 * Score configs per project (issue 30): plain queries, no access rules (the services hold
 * those). Archived configs are kept (scores were given under them) but check nothing.
 */
export class ScoreConfigStore {
  constructor(private readonly db: DataSource | EntityManager) {}

  create(projectId: string, settings: ScoreConfigSettings): Promise<ScoreConfig> {
    return uniqueName(settings.name, async () => {
      const [row]: ScoreConfigRow[] = await this.db.query(
        `INSERT INTO score_configs (id, project_id, name, data_type, min_value, max_value, categories, description)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8) RETURNING ${COLUMNS}`,
        [randomUUID(), projectId, ...settingsParams(settings)],
      );
      return toConfig(row);
    });
  }

  /** Every config of the project, archived ones too, by name. */
  async list(projectId: string): Promise<ScoreConfig[]> {
    const rows: ScoreConfigRow[] = await this.db.query(`SELECT ${COLUMNS} FROM score_configs WHERE project_id = $1 ORDER BY name, id`, [
      projectId,
    ]);
    return rows.map(toConfig);
  }

  /** One page (1-based) of the project's configs, newest first as Langfuse lists them, and how many there are. */
  async page(projectId: string, page: number, limit: number): Promise<{ items: ScoreConfig[]; total: number }> {
    const [rows, [{ total }]]: [ScoreConfigRow[], { total: number }[]] = await Promise.all([
      this.db.query(`SELECT ${COLUMNS} FROM score_configs WHERE project_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`, [
        projectId,
        limit,
        (page - 1) * limit,
      ]),
      this.db.query('SELECT count(*)::int AS total FROM score_configs WHERE project_id = $1', [projectId]),
    ]);
    return { items: rows.map(toConfig), total };
  }

  async get(projectId: string, id: string): Promise<ScoreConfig | null> {
    const [row]: ScoreConfigRow[] = await this.db.query(`SELECT ${COLUMNS} FROM score_configs WHERE project_id = $1 AND id = $2`, [
      projectId,
      id,
    ]);
    return row ? toConfig(row) : null;
  }

  async update(projectId: string, id: string, settings: ScoreConfigSettings): Promise<ScoreConfig | null> {
    return uniqueName(settings.name, async () => {
      const [row] = returnedRows<ScoreConfigRow>(
        await this.db.query(
          `UPDATE score_configs SET name = $3, data_type = $4, min_value = $5, max_value = $6, categories = $7::jsonb, description = $8, updated_at = now()
            WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
          [projectId, id, ...settingsParams(settings)],
        ),
      );
      return row ? toConfig(row) : null;
    });
  }

  async setArchived(projectId: string, id: string, archived: boolean): Promise<ScoreConfig | null> {
    const [row] = returnedRows<ScoreConfigRow>(
      await this.db.query(
        `UPDATE score_configs SET archived = $3, updated_at = now() WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
        [projectId, id, archived],
      ),
    );
    return row ? toConfig(row) : null;
  }

  /** The configs in force (not archived) for some score names, each looked up as stored (`configNameOf`): what every score with one of them is checked against. */
  async inForce(projectId: string, names: Iterable<string>): Promise<ScoreConfigsByName> {
    const wanted = [...new Set([...names].map(configNameOf))];
    if (!wanted.length) return new Map();
    const rows: ScoreConfigRow[] = await this.db.query(
      `SELECT ${COLUMNS} FROM score_configs WHERE project_id = $1 AND name = ANY($2::text[]) AND NOT archived`,
      [projectId, wanted],
    );
    return new Map(rows.map((r) => [r.name, toConfig(r)]));
  }
}
