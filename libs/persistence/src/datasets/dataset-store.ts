import type { DataSource, EntityManager } from 'typeorm';
import {
  type Dataset,
  type DatasetInput,
  type DatasetItem,
  type DatasetItemInput,
  type DatasetRun,
  type JsonObject,
  type JsonValue,
  type RunItemInput,
  type RunScore,
  type RunScoreInput,
  validationError,
} from '@app/domain';

/** A page by number, from 1, as Langfuse's lists are paged (they answer the total pages). */
export interface PageRequest {
  page: number;
  limit: number;
}

export interface NumberedPage<T> {
  data: T[];
  totalItems: number;
}

interface DatasetRow {
  id: string;
  name: string;
  description: string | null;
  metadata: JsonObject | null;
  created_at: Date;
  updated_at: Date;
}

interface ItemRow {
  id: string;
  dataset_id: string;
  dataset_name: string;
  input: JsonValue | null;
  expected_output: JsonValue | null;
  metadata: JsonValue | null;
  source_trace_id: string | null;
  source_span_id: string | null;
  status: DatasetItem['status'];
  created_at: Date;
  valid_from: Date;
}

interface RunRow extends DatasetRow {
  dataset_id: string;
  dataset_name: string;
}

const toDataset = (r: DatasetRow): Dataset => ({
  id: r.id,
  name: r.name,
  description: r.description,
  metadata: r.metadata,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

const toItem = (r: ItemRow): DatasetItem => ({
  id: r.id,
  datasetId: r.dataset_id,
  datasetName: r.dataset_name,
  input: r.input,
  expectedOutput: r.expected_output,
  metadata: r.metadata,
  sourceTraceId: r.source_trace_id,
  sourceSpanId: r.source_span_id,
  status: r.status,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.valid_from.toISOString(),
});

const toRun = (r: RunRow): DatasetRun => ({ ...toDataset(r), datasetId: r.dataset_id, datasetName: r.dataset_name });

const DATASET_COLUMNS = 'id, name, description, metadata, created_at, updated_at';
const RUN_COLUMNS = 'r.id, r.name, r.description, r.metadata, r.created_at, r.updated_at, r.dataset_id, d.name AS dataset_name';

/**
 * Each item with its newest version at or before $3 (null: now), of dataset $2 in project $1:
 * an item is as it was then, and one created later is not there yet.
 */
const ITEMS_AS_OF = `
  FROM dataset_items i
  JOIN datasets d ON d.project_id = i.project_id AND d.id = i.dataset_id
  CROSS JOIN LATERAL (
    SELECT v.* FROM dataset_item_versions v
     WHERE v.project_id = i.project_id AND v.item_id = i.id AND v.valid_from <= coalesce($3::timestamptz, 'infinity')
     ORDER BY v.valid_from DESC LIMIT 1) v
 WHERE i.project_id = $1 AND i.dataset_id = $2`;
const ITEM_COLUMNS = `i.id, i.dataset_id, d.name AS dataset_name, v.input, v.expected_output, v.metadata, v.source_trace_id,
  v.source_span_id, v.status, i.created_at, v.valid_from`;

/** Datasets, their items with every version, and runs, per project: plain queries, no access rules (the services hold those). */
export class DatasetStore {
  constructor(private readonly db: DataSource | EntityManager) {}

  /** Creates the dataset, or changes the description and metadata given of the one of that name. */
  async upsert(projectId: string, input: DatasetInput): Promise<Dataset> {
    const [row]: DatasetRow[] = await this.db.query(
      `INSERT INTO datasets AS d (project_id, id, name, description, metadata)
       VALUES ($1, gen_random_uuid(), $2, $3, $4::jsonb)
       ON CONFLICT (project_id, name) DO UPDATE
         SET description = coalesce(excluded.description, d.description), metadata = coalesce(excluded.metadata, d.metadata), updated_at = now()
       RETURNING ${DATASET_COLUMNS}`,
      [projectId, input.name, input.description ?? null, input.metadata === undefined ? null : JSON.stringify(input.metadata)],
    );
    return toDataset(row);
  }

  async find(projectId: string, name: string): Promise<Dataset | null> {
    const [row]: DatasetRow[] = await this.db.query(`SELECT ${DATASET_COLUMNS} FROM datasets WHERE project_id = $1 AND name = $2`, [
      projectId,
      name,
    ]);
    return row ? toDataset(row) : null;
  }

  async list(projectId: string, { page, limit }: PageRequest): Promise<NumberedPage<Dataset>> {
    const rows: (DatasetRow & { total: number })[] = await this.db.query(
      `SELECT ${DATASET_COLUMNS}, count(*) OVER ()::int AS total FROM datasets WHERE project_id = $1 ORDER BY name LIMIT $2 OFFSET $3`,
      [projectId, limit, (page - 1) * limit],
    );
    return { data: rows.map(toDataset), totalItems: rows[0]?.total ?? (await this.count('datasets', projectId)) };
  }

  /**
   * Stores the items of one dataset, idempotent by id: an item whose content is unchanged
   * keeps its version, a changed one gets a new version from now on. An id that belongs to
   * another dataset of the project is refused (Langfuse's rule: ids are never reused across
   * datasets). Concurrent writes of one item take turns on its row, so its versions are in
   * the order of their writes. New items of one request are created in the request's order
   * (a microsecond apart, up to the transaction's start, so before any of their versions), so
   * a list, oldest first, reads them as sent; their rows are still
   * taken in id order, as concurrent requests must take them.
   */
  upsertItems(projectId: string, dataset: Pick<Dataset, 'id'>, items: DatasetItemInput[]): Promise<DatasetItem[]> {
    return this.db.transaction(async (tx) => {
      const ids = items.map((i) => i.id);
      const claimed: { id: string; dataset_id: string }[] = await tx.query(
        `INSERT INTO dataset_items AS i (project_id, id, dataset_id, created_at, updated_at)
         SELECT $1, id, $2, t, t
           FROM unnest($3::text[]) WITH ORDINALITY AS u (id, ord)
           CROSS JOIN LATERAL (SELECT now() - (cardinality($3::text[]) - ord) * interval '1 microsecond' AS t) c
          ORDER BY id
         ON CONFLICT (project_id, id) DO UPDATE SET dataset_id = i.dataset_id
         RETURNING id, dataset_id`,
        [projectId, dataset.id, ids],
      );
      const elsewhere = claimed.find((c) => c.dataset_id !== dataset.id);
      if (elsewhere)
        throw validationError(`id: item "${elsewhere.id}" belongs to another dataset of this project; item ids are unique in a project`);
      await tx.query(
        `WITH r AS (
           SELECT * FROM jsonb_to_recordset($2::jsonb) AS r (id text, input jsonb, expected_output jsonb, metadata jsonb,
             source_trace_id text, source_span_id text, status text)
         ), added AS (
           INSERT INTO dataset_item_versions (project_id, item_id, valid_from, input, expected_output, metadata, source_trace_id, source_span_id, status)
           SELECT $1, r.id, clock_timestamp(), r.input, r.expected_output, r.metadata, r.source_trace_id, r.source_span_id, r.status
             FROM r
            WHERE NOT EXISTS (
              SELECT 1 FROM (SELECT * FROM dataset_item_versions v WHERE v.project_id = $1 AND v.item_id = r.id ORDER BY v.valid_from DESC LIMIT 1) c
               WHERE c.input IS NOT DISTINCT FROM r.input AND c.expected_output IS NOT DISTINCT FROM r.expected_output
                 AND c.metadata IS NOT DISTINCT FROM r.metadata AND c.source_trace_id IS NOT DISTINCT FROM r.source_trace_id
                 AND c.source_span_id IS NOT DISTINCT FROM r.source_span_id AND c.status = r.status)
           RETURNING item_id, valid_from
         )
         UPDATE dataset_items i SET updated_at = a.valid_from FROM added a WHERE i.project_id = $1 AND i.id = a.item_id`,
        [
          projectId,
          JSON.stringify(
            items.map((i) => ({
              id: i.id,
              input: i.input,
              expected_output: i.expectedOutput,
              metadata: i.metadata,
              source_trace_id: i.sourceTraceId,
              source_span_id: i.sourceSpanId,
              status: i.status,
            })),
          ),
        ],
      );
      const rows: ItemRow[] = await tx.query(
        `SELECT ${ITEM_COLUMNS} ${ITEMS_AS_OF} AND i.id = ANY($4::text[]) ORDER BY i.created_at, i.id`,
        [projectId, dataset.id, null, ids],
      );
      return rows.map(toItem);
    });
  }

  /** A page of the dataset's items, in the order they were first added, as they were at `asOf` (null: now). */
  async items(projectId: string, datasetId: string, asOf: string | null, { page, limit }: PageRequest): Promise<NumberedPage<DatasetItem>> {
    const rows: (ItemRow & { total: number })[] = await this.db.query(
      `SELECT ${ITEM_COLUMNS}, count(*) OVER ()::int AS total ${ITEMS_AS_OF} ORDER BY i.created_at, i.id LIMIT $4 OFFSET $5`,
      [projectId, datasetId, asOf, limit, (page - 1) * limit],
    );
    if (rows.length) return { data: rows.map(toItem), totalItems: rows[0].total };
    const [{ total }] = await this.db.query(`SELECT count(*)::int AS total ${ITEMS_AS_OF}`, [projectId, datasetId, asOf]);
    return { data: [], totalItems: total };
  }

  /** One item as it is now, whichever dataset of the project it is in. */
  async item(projectId: string, id: string): Promise<DatasetItem | null> {
    const [row]: ItemRow[] = await this.db.query(`SELECT ${ITEM_COLUMNS} ${ITEMS_AS_OF.replace('i.dataset_id = $2', 'i.id = $2')}`, [
      projectId,
      id,
      null,
    ]);
    return row ? toItem(row) : null;
  }

  /** Creates the run of that name, or changes the description and metadata given; a run is created by its first run item. */
  async upsertRun(
    projectId: string,
    dataset: Pick<Dataset, 'id' | 'name'>,
    input: Pick<RunItemInput, 'runName' | 'runDescription' | 'metadata'>,
  ): Promise<DatasetRun> {
    const [row]: RunRow[] = await this.db.query(
      `WITH r AS (
         INSERT INTO dataset_runs AS r (project_id, id, dataset_id, name, description, metadata)
         VALUES ($1, gen_random_uuid(), $2, $3, $4, $5::jsonb)
         ON CONFLICT (project_id, dataset_id, name) DO UPDATE
           SET description = coalesce(excluded.description, r.description), metadata = coalesce(excluded.metadata, r.metadata), updated_at = now()
         RETURNING *)
       SELECT r.id, r.name, r.description, r.metadata, r.created_at, r.updated_at, r.dataset_id, $6::text AS dataset_name FROM r`,
      [
        projectId,
        dataset.id,
        input.runName,
        input.runDescription ?? null,
        input.metadata === undefined ? null : JSON.stringify(input.metadata),
        dataset.name,
      ],
    );
    return toRun(row);
  }

  async run(projectId: string, datasetId: string, name: string): Promise<DatasetRun | null> {
    const [row]: RunRow[] = await this.db.query(
      `SELECT ${RUN_COLUMNS} FROM dataset_runs r JOIN datasets d ON d.project_id = r.project_id AND d.id = r.dataset_id
        WHERE r.project_id = $1 AND r.dataset_id = $2 AND r.name = $3`,
      [projectId, datasetId, name],
    );
    return row ? toRun(row) : null;
  }

  /** A page of the dataset's runs, newest first. */
  async runs(projectId: string, datasetId: string, { page, limit }: PageRequest): Promise<NumberedPage<DatasetRun>> {
    const rows: (RunRow & { total: number })[] = await this.db.query(
      `SELECT ${RUN_COLUMNS}, count(*) OVER ()::int AS total
         FROM dataset_runs r JOIN datasets d ON d.project_id = r.project_id AND d.id = r.dataset_id
        WHERE r.project_id = $1 AND r.dataset_id = $2 ORDER BY r.created_at DESC, r.id LIMIT $3 OFFSET $4`,
      [projectId, datasetId, limit, (page - 1) * limit],
    );
    if (rows.length) return { data: rows.map(toRun), totalItems: rows[0].total };
    const [{ total }] = await this.db.query(`SELECT count(*)::int AS total FROM dataset_runs WHERE project_id = $1 AND dataset_id = $2`, [
      projectId,
      datasetId,
    ]);
    return { data: [], totalItems: total };
  }

  /**
   * Stores run scores, upserted on id, those whose run is a run of the project; answers the
   * ids of the runs it did not find, so the caller refuses their scores.
   */
  async upsertRunScores(projectId: string, scores: RunScoreInput[]): Promise<Set<string>> {
    const runIds = [...new Set(scores.map((s) => s.runId))];
    const found: { id: string }[] = await this.db.query(
      `SELECT id::text AS id FROM dataset_runs WHERE project_id = $1 AND id::text = ANY($2::text[])`,
      [projectId, runIds],
    );
    const known = new Set(found.map((r) => r.id));
    const stored = scores.filter((s) => known.has(s.runId));
    if (stored.length)
      await this.db.query(
        `INSERT INTO dataset_run_scores AS s (project_id, id, run_id, name, value, data_type, comment, metadata, source)
         SELECT $1, r.id, r.run_id::uuid, r.name, r.value, r.data_type, r.comment, r.metadata, r.source
           FROM jsonb_to_recordset($2::jsonb) AS r (id text, run_id text, name text, value jsonb, data_type text, comment text,
             metadata jsonb, source text)
         ON CONFLICT (project_id, id) DO UPDATE
           SET run_id = excluded.run_id, name = excluded.name, value = excluded.value, data_type = excluded.data_type,
               comment = excluded.comment, metadata = excluded.metadata, source = excluded.source, updated_at = clock_timestamp()`,
        [
          projectId,
          JSON.stringify(
            // The last of one id in a request wins, as a later request's would.
            [...new Map(stored.map((s) => [s.id, s])).values()].map((s) => ({
              id: s.id,
              run_id: s.runId,
              name: s.name,
              value: s.value,
              data_type: s.dataType,
              comment: s.comment,
              metadata: s.metadata,
              source: s.source,
            })),
          ),
        ],
      );
    return new Set(runIds.filter((id) => !known.has(id)));
  }

  /** Each run's own scores, one per name: the newest, by name. */
  async runScores(projectId: string, runIds: string[]): Promise<Map<string, RunScore[]>> {
    const rows: { run_id: string; name: string; value: RunScore['value']; comment: string | null; updated_at: Date }[] =
      await this.db.query(
        `SELECT DISTINCT ON (run_id, name) run_id::text AS run_id, name, value, comment, updated_at
         FROM dataset_run_scores WHERE project_id = $1 AND run_id = ANY($2::uuid[])
        ORDER BY run_id, name, updated_at DESC, id`,
        [projectId, runIds],
      );
    const byRun = new Map<string, RunScore[]>(runIds.map((id) => [id, []]));
    for (const r of rows)
      byRun.get(r.run_id)?.push({ name: r.name, value: r.value, comment: r.comment, timestamp: r.updated_at.toISOString() });
    return byRun;
  }

  private async count(table: 'datasets', projectId: string): Promise<number> {
    const [{ total }] = await this.db.query(`SELECT count(*)::int AS total FROM ${table} WHERE project_id = $1`, [projectId]);
    return total;
  }
}
