import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A row's `versions` may name a default: `"*"` is the version of every field the object
 * does not name, a field named with null has no version, any other field has its own. One
 * event stamps every field it sets with one version, so a row written from one event stores
 * that version once instead of once per field. Rows without `"*"` (every row written
 * before) read as they always did, so none is rewritten.
 *
 * `spanlog_version` is the one place that reads a field's version; the merge rule is the
 * same as before over those versions: the newer wins, a field without one takes any.
 */
export class CompactVersions1764300000000 implements MigrationInterface {
  name = 'CompactVersions1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION spanlog_version(versions jsonb, field text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT CASE WHEN versions ? field THEN versions->>field ELSE versions->>'*' END
        $$;
      CREATE OR REPLACE FUNCTION spanlog_newer(incoming jsonb, current jsonb, field text) RETURNS boolean
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT coalesce(spanlog_version(incoming, field) COLLATE "C" > spanlog_version(current, field) COLLATE "C",
                          spanlog_version(incoming, field) IS NOT NULL)
        $$;
      -- Fields neither side names take the newer default, so the result's default is the newer
      -- one; a named field is kept only where its merged version differs from that default.
      CREATE OR REPLACE FUNCTION spanlog_merge_versions(a jsonb, b jsonb) RETURNS jsonb
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT coalesce(jsonb_object_agg(k, v) FILTER (WHERE k = '*' OR v IS DISTINCT FROM star), '{}'::jsonb)
            FROM (SELECT k,
                         greatest(spanlog_version(a, k) COLLATE "C", spanlog_version(b, k) COLLATE "C") AS v,
                         greatest((a->>'*') COLLATE "C", (b->>'*') COLLATE "C") AS star
                    FROM (SELECT jsonb_object_keys(a) UNION SELECT jsonb_object_keys(b)) AS keys (k)) AS merged
        $$;
    `);
  }

  /** Spells every compact row out field by field first: the old functions know no default. */
  async down(q: QueryRunner): Promise<void> {
    for (const [table, fields] of Object.entries(FIELDS_BY_TABLE)) {
      await q.query(
        `UPDATE ${table} SET versions = (
           SELECT coalesce(jsonb_object_agg(f, spanlog_version(versions, f)) FILTER (WHERE spanlog_version(versions, f) IS NOT NULL), '{}'::jsonb)
             FROM unnest($1::text[]) AS f)
          WHERE versions ? '*'`,
        [fields],
      );
    }
    await q.query(`
      CREATE OR REPLACE FUNCTION spanlog_newer(incoming jsonb, current jsonb, field text) RETURNS boolean
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT incoming ? field
             AND (current IS NULL OR NOT current ? field
                  OR (incoming->>field) COLLATE "C" > (current->>field) COLLATE "C")
        $$;
      CREATE OR REPLACE FUNCTION spanlog_merge_versions(a jsonb, b jsonb) RETURNS jsonb
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT coalesce(jsonb_object_agg(k,
                   CASE WHEN NOT a ? k THEN b->k
                        WHEN NOT b ? k THEN a->k
                        WHEN (b->>k) COLLATE "C" > (a->>k) COLLATE "C" THEN b->k
                        ELSE a->k END), '{}'::jsonb)
            FROM (SELECT jsonb_object_keys(a) UNION SELECT jsonb_object_keys(b)) AS keys (k)
        $$;
      DROP FUNCTION spanlog_version(jsonb, text);
    `);
  }
}

/** The merged fields of each read model at this migration, which a default stands for. */
const FIELDS_BY_TABLE: Record<string, string[]> = {
  traces: ['name', 'timestamp', 'userId', 'sessionId', 'metadata', 'tags', 'input', 'output', 'release', 'version', 'environment'],
  spans: [
    'traceId',
    'parentId',
    'name',
    'type',
    'model',
    'modelParameters',
    'promptTokens',
    'completionTokens',
    'totalTokens',
    'cost',
    'input',
    'output',
    'metadata',
    'attributes',
    'startTime',
    'endTime',
    'level',
    'statusMessage',
  ],
  scores: ['traceId', 'spanId', 'name', 'value', 'dataType', 'comment', 'metadata', 'source', 'timestamp'],
};
