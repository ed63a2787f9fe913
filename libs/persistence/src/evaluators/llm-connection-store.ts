import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  type LlmConnection,
  type LlmConnectionPatch,
  type LlmConnectionSecrets,
  type LlmConnectionSettings,
  validationError,
} from '@app/domain';
import { returnedRows } from '../query-result';
import type { SecretBox } from '../secrets/secret-box';

interface ConnectionRow {
  id: string;
  project_id: string;
  name: string;
  base_url: string;
  api_key_sealed: string;
  headers_sealed: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, project_id, name, base_url, api_key_sealed, headers_sealed, created_at, updated_at';
const UNIQUE_NAME = 'llm_connections_project_id_name_key';
const UNIQUE_VIOLATION = '23505';

// Each value is bound to its row and column: moved elsewhere, it does not open.
const apiKeyContext = (id: string) => `llm-connection:${id}:api-key`;
const headersContext = (id: string) => `llm-connection:${id}:headers`;

/** The unique name is the database's rule; here it becomes the message a client can act on. */
async function uniqueName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const { code, constraint } = err as { code?: string; constraint?: string };
    if (code === UNIQUE_VIOLATION && constraint === UNIQUE_NAME)
      throw validationError(`name: an LLM connection named "${name}" already exists in this project`);
    throw err;
  }
}

/**
 * LLM connections per project (issue 29): plain queries, no access rules (the service holds
 * them). The API key and header values are sealed on the way in (SecretBox) and opened only by
 * `secrets`, for a judge's call: no read of a connection returns them.
 */
export class LlmConnectionStore {
  constructor(
    private readonly db: DataSource,
    private readonly box: SecretBox,
  ) {}

  private toConnection(row: ConnectionRow): LlmConnection {
    return {
      id: row.id,
      projectId: row.project_id,
      name: row.name,
      baseUrl: row.base_url,
      headerNames: Object.keys(this.openHeaders(row)),
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }

  private openHeaders(row: Pick<ConnectionRow, 'id' | 'headers_sealed'>): Record<string, string> {
    return JSON.parse(this.box.open(row.headers_sealed, headersContext(row.id))) as Record<string, string>;
  }

  create(projectId: string, s: LlmConnectionSettings): Promise<LlmConnection> {
    return uniqueName(s.name, async () => {
      // The id is chosen here because the sealed values are bound to it.
      const id = randomUUID();
      const [row]: ConnectionRow[] = await this.db.query(
        `INSERT INTO llm_connections (id, project_id, name, base_url, api_key_sealed, headers_sealed)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
        [
          id,
          projectId,
          s.name,
          s.baseUrl,
          this.box.seal(s.apiKey, apiKeyContext(id)),
          this.box.seal(JSON.stringify(s.headers), headersContext(id)),
        ],
      );
      return this.toConnection(row);
    });
  }

  async list(projectId: string): Promise<LlmConnection[]> {
    const rows: ConnectionRow[] = await this.db.query(`SELECT ${COLUMNS} FROM llm_connections WHERE project_id = $1 ORDER BY name, id`, [
      projectId,
    ]);
    return rows.map((row) => this.toConnection(row));
  }

  async get(projectId: string, id: string): Promise<LlmConnection | null> {
    const [row]: ConnectionRow[] = await this.db.query(`SELECT ${COLUMNS} FROM llm_connections WHERE project_id = $1 AND id = $2`, [
      projectId,
      id,
    ]);
    return row ? this.toConnection(row) : null;
  }

  /** Null when the project has no such connection. A field left out keeps its value; `headers` replaces the set. */
  update(projectId: string, id: string, patch: LlmConnectionPatch): Promise<LlmConnection | null> {
    return uniqueName(patch.name, async () => {
      const result = await this.db.query(
        `UPDATE llm_connections SET
           name = coalesce($3, name),
           base_url = coalesce($4, base_url),
           api_key_sealed = coalesce($5, api_key_sealed),
           headers_sealed = coalesce($6, headers_sealed),
           updated_at = greatest(now(), updated_at + interval '1 millisecond')
         WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
        [
          projectId,
          id,
          patch.name ?? null,
          patch.baseUrl ?? null,
          patch.apiKey === undefined ? null : this.box.seal(patch.apiKey, apiKeyContext(id)),
          patch.headers === undefined ? null : this.box.seal(JSON.stringify(patch.headers), headersContext(id)),
        ],
      );
      const [row] = returnedRows<ConnectionRow>(result);
      return row ? this.toConnection(row) : null;
    });
  }

  /** False when the project has no such connection. Its judges stay, and their runs fail with "connection missing". */
  async delete(projectId: string, id: string): Promise<boolean> {
    const result = await this.db.query('DELETE FROM llm_connections WHERE project_id = $1 AND id = $2 RETURNING id', [projectId, id]);
    return returnedRows(result).length > 0;
  }

  /** The key and header values of connection `id` for a judge's call; null when it is gone. Throws SecretBoxError when they do not open. */
  async secrets(id: string): Promise<LlmConnectionSecrets | null> {
    const [row]: Pick<ConnectionRow, 'id' | 'api_key_sealed' | 'headers_sealed'>[] = await this.db.query(
      'SELECT id, api_key_sealed, headers_sealed FROM llm_connections WHERE id = $1',
      [id],
    );
    return row ? { apiKey: this.box.open(row.api_key_sealed, apiKeyContext(row.id)), headers: this.openHeaders(row) } : null;
  }
}
