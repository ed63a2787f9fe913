import type { DataSource, EntityManager } from 'typeorm';
import {
  DEFAULT_LABEL,
  LATEST_LABEL,
  PROMPT_TEMPLATE_LIMITS,
  type JsonObject,
  type PromptPick,
  type PromptTemplateBody,
  type PromptTemplateSummary,
  type PromptVersion,
  type PromptVersionInput,
  resolvedLabels,
  serviceUnavailable,
} from '@app/domain';
import { type KeysetOrder, keyset } from '../keyset';

interface VersionRow {
  name: string;
  version: number;
  template: PromptTemplateBody;
  config: JsonObject;
  commit_message: string | null;
  created_at: Date;
  labels: string[];
}

/** A label a push set, and the version that had it before (null: no version had it). */
export interface LabelMove {
  label: string;
  fromVersion: number | null;
}

export interface PushedPromptVersion {
  version: PromptVersion;
  labelMoves: LabelMove[];
}

/** A resolved version: its stored labels, and whether it is the newest of its name. */
export interface ResolvedPromptVersion {
  version: PromptVersion;
  isLatest: boolean;
}

const VERSION_COLUMNS = 'v.name, v.version, v.template, v.config, v.commit_message, v.created_at';

/** Names in byte order. */
const NAME_ORDER: KeysetOrder = { columns: [{ sql: 'name', type: 'text' }] };
/** One name's versions, newest first. */
const VERSION_ORDER: KeysetOrder = { columns: [{ sql: 'v.version', type: 'integer' }], descending: true };

const LABELS_OF_VERSION = `ARRAY(SELECT l.label FROM prompt_labels l WHERE l.project_id = v.project_id AND l.name = v.name AND l.version = v.version ORDER BY l.label) AS labels`;

const toVersion = (row: VersionRow): PromptVersion => ({
  name: row.name,
  version: row.version,
  template: row.template,
  labels: row.labels,
  config: row.config,
  commitMessage: row.commit_message,
  createdAt: row.created_at.toISOString(),
});

const NEWEST = 'SELECT max(m.version) FROM prompt_versions m WHERE m.project_id = $1 AND m.name = $2';
const LABELLED = (param: string) => `SELECT t.version FROM prompt_labels t WHERE t.project_id = $1 AND t.name = $2 AND t.label = ${param}`;

/** The version a pick names, as SQL over $1 = project, $2 = name, $3 = the pick's value. */
function pickedVersion(pick: PromptPick): { sql: string; params: unknown[] } {
  switch (pick.by) {
    case 'version':
      return { sql: '$3::integer', params: [pick.version] };
    case 'label':
      return pick.label === LATEST_LABEL ? { sql: `(${NEWEST})`, params: [] } : { sql: `(${LABELLED('$3')})`, params: [pick.label] };
    case 'default':
      return { sql: `coalesce((${LABELLED('$3')}), (${NEWEST}))`, params: [DEFAULT_LABEL] };
  }
}

/** Prompt template versions and labels per project: plain queries, no access rules (the service holds those). */
export class PromptTemplateStore {
  constructor(private readonly db: DataSource) {}

  /**
   * Stores the next version of `input.name` (1 for a new name) and moves its labels to it.
   * The number is max + 1, inserted under the primary key (project, name, version): when a
   * concurrent push holds that number, the insert waits for it to finish and, if it committed,
   * does nothing, and the next statement (READ COMMITTED: a new snapshot) sees it and takes
   * the number after. So numbers are given in commit order with no gap and no duplicate, and
   * no two pushes of a name are past their insert at once, which makes the label moves below
   * exact without a lock of their own.
   */
  push(projectId: string, input: PromptVersionInput, apiKeyId: string): Promise<PushedPromptVersion> {
    return this.db.transaction(async (tx) => {
      const row = await this.insertNextVersion(tx, projectId, input, apiKeyId);
      const before: { label: string; version: number }[] = await tx.query(
        'SELECT label, version FROM prompt_labels WHERE project_id = $1 AND name = $2 AND label = ANY($3::text[])',
        [projectId, input.name, input.labels],
      );
      await tx.query(
        `INSERT INTO prompt_labels (project_id, name, label, version)
         SELECT $1::uuid, $2::text, label, $4::integer FROM unnest($3::text[]) AS label
         ON CONFLICT (project_id, name, label) DO UPDATE SET version = excluded.version`,
        [projectId, input.name, input.labels, row.version],
      );
      const previous = new Map(before.map((b) => [b.label, b.version]));
      return {
        version: toVersion({ ...row, labels: input.labels }),
        labelMoves: input.labels.map((label) => ({ label, fromVersion: previous.get(label) ?? null })),
      };
    });
  }

  private async insertNextVersion(
    tx: EntityManager,
    projectId: string,
    input: PromptVersionInput,
    apiKeyId: string,
  ): Promise<Omit<VersionRow, 'labels'>> {
    for (let attempt = 0; attempt < PROMPT_TEMPLATE_LIMITS.pushAttempts; attempt++) {
      // clock_timestamp(): a push that waited is created after the one it waited for, not at its transaction's start.
      const [row]: Omit<VersionRow, 'labels'>[] = await tx.query(
        `INSERT INTO prompt_versions AS v (project_id, name, version, template, config, commit_message, created_by_api_key_id, created_at)
         SELECT $1::uuid, $2::text, coalesce(max(version), 0) + 1, $3::jsonb, $4::jsonb, $5::text, $6::uuid, clock_timestamp()
           FROM prompt_versions WHERE project_id = $1 AND name = $2
         ON CONFLICT (project_id, name, version) DO NOTHING
         RETURNING ${VERSION_COLUMNS}`,
        [projectId, input.name, JSON.stringify(input.template), JSON.stringify(input.config), input.commitMessage, apiKeyId],
      );
      if (row) return row;
    }
    throw serviceUnavailable(`name: too many concurrent pushes of "${input.name}"; retry`);
  }

  /** The version a pick names, or null when the project has no such name, version or label. */
  async resolve(projectId: string, name: string, pick: PromptPick): Promise<ResolvedPromptVersion | null> {
    const { sql, params } = pickedVersion(pick);
    const [row]: (VersionRow & { is_latest: boolean })[] = await this.db.query(
      `SELECT ${VERSION_COLUMNS}, ${LABELS_OF_VERSION}, v.version = (${NEWEST}) AS is_latest
         FROM prompt_versions v
        WHERE v.project_id = $1 AND v.name = $2 AND v.version = ${sql}`,
      [projectId, name, ...params],
    );
    return row ? { version: toVersion(row), isLatest: row.is_latest } : null;
  }

  /**
   * A page of the project's names in byte order, after `after`. Labels move only when a version
   * is pushed, so a name's newest version is also its last change.
   */
  async list(projectId: string, after: string | null, limit: number): Promise<PromptTemplateSummary[]> {
    const params: unknown[] = [projectId];
    const page = keyset(NAME_ORDER, after === null ? null : [after], limit, params);
    const rows: { name: string; latest_version: number; updated_at: Date; labels: string[] }[] = await this.db.query(
      `SELECT n.name, n.latest_version, n.updated_at,
              ARRAY(SELECT l.label FROM prompt_labels l WHERE l.project_id = $1 AND l.name = n.name ORDER BY l.label) AS labels
         FROM (SELECT name, max(version) AS latest_version, max(created_at) AS updated_at
                 FROM prompt_versions
                WHERE project_id = $1 AND ${page.after}
                GROUP BY name ORDER BY ${page.orderBy} ${page.limit}) n
        ORDER BY n.name`,
      params,
    );
    return rows.map((r) => ({
      name: r.name,
      latestVersion: r.latest_version,
      labels: resolvedLabels(r.labels, true),
      updatedAt: r.updated_at.toISOString(),
    }));
  }

  /** A page of one name's versions, newest first, below `before` when given; each with its stored labels and `latest` on the newest. */
  async versions(projectId: string, name: string, before: number | null, limit: number): Promise<PromptVersion[]> {
    const params: unknown[] = [projectId, name];
    const page = keyset(VERSION_ORDER, before === null ? null : [before], limit, params);
    const rows: (VersionRow & { is_latest: boolean })[] = await this.db.query(
      `SELECT ${VERSION_COLUMNS}, ${LABELS_OF_VERSION}, v.version = (${NEWEST}) AS is_latest
         FROM prompt_versions v
        WHERE v.project_id = $1 AND v.name = $2 AND ${page.after}
        ORDER BY ${page.orderBy} ${page.limit}`,
      params,
    );
    return rows.map((row) => ({ ...toVersion(row), labels: resolvedLabels(row.labels, row.is_latest) }));
  }
}
