import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A field whose column is NULL has no version, whatever `"*"` says: no event sets a field to
 * null (`stamped` leaves null out), so a NULL column is a field no event set. A row written from
 * one event then stores `{"*": version}` alone where it named every field the event left unset
 * with null: a fifth of an OTLP span row's parameter (docs/BENCHMARKS.md, issue 25). Rows
 * stored before, with those nulls, read the same under either rule, so none is rewritten.
 *
 * `spanlog_version_of` is the one place that reads a field's version now: the merge rule over
 * those versions is unchanged (the newer wins, a field without one takes any). The upsert says
 * which fields each side holds; on a conflict `spanlog_unset` names both sides' unset fields
 * with null before `spanlog_merge_versions`, so a merged row's `"*"` never covers a NULL column
 * (the upsert then strips the nulls, which the merged row's NULL columns imply).
 */
export class UnsetFieldsUnnamed1767200000000 implements MigrationInterface {
  name = 'UnsetFieldsUnnamed1767200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION spanlog_version_of(versions jsonb, field text, present boolean) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT CASE WHEN versions ? field THEN versions->>field WHEN present THEN versions->>'*' END
        $$;
      CREATE FUNCTION spanlog_newer_of(incoming jsonb, incoming_present boolean, current jsonb, current_present boolean, field text)
        RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT coalesce(spanlog_version_of(incoming, field, incoming_present) COLLATE "C"
                            > spanlog_version_of(current, field, current_present) COLLATE "C",
                          spanlog_version_of(incoming, field, incoming_present) IS NOT NULL)
        $$;
      -- \`fields\` holds the names of the row's NULL columns and a NULL for each other one.
      CREATE FUNCTION spanlog_unset(versions jsonb, fields text[]) RETURNS jsonb
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT versions || coalesce((SELECT jsonb_object_agg(f, NULL::text) FROM unnest(fields) AS f
                                        WHERE f IS NOT NULL AND NOT versions ? f), '{}'::jsonb)
        $$;
      DROP FUNCTION spanlog_newer(jsonb, jsonb, text);
    `);
  }

  /** Names every unset field with null again first: the functions before know no column. */
  async down(q: QueryRunner): Promise<void> {
    for (const [table, columns] of Object.entries(COLUMNS_BY_TABLE)) {
      const unset = Object.entries(columns).map(([field, column]) => `CASE WHEN "${column}" IS NULL THEN '${field}' END`);
      await q.query(`UPDATE ${table} SET versions = spanlog_unset(versions, ARRAY[${unset.join(', ')}]) WHERE versions ? '*'`);
    }
    await q.query(`
      CREATE FUNCTION spanlog_newer(incoming jsonb, current jsonb, field text) RETURNS boolean
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT coalesce(spanlog_version(incoming, field) COLLATE "C" > spanlog_version(current, field) COLLATE "C",
                          spanlog_version(incoming, field) IS NOT NULL)
        $$;
      DROP FUNCTION spanlog_unset(jsonb, text[]);
      DROP FUNCTION spanlog_newer_of(jsonb, boolean, jsonb, boolean, text);
      DROP FUNCTION spanlog_version_of(jsonb, text, boolean);
    `);
  }
}

/** The merged fields of each read model and their columns at this migration. */
const COLUMNS_BY_TABLE: Record<string, Record<string, string>> = {
  traces: {
    name: 'name',
    timestamp: 'body_timestamp',
    userId: 'user_id',
    sessionId: 'session_id',
    metadata: 'metadata',
    tags: 'tags',
    input: 'input',
    output: 'output',
    release: 'release',
    version: 'version',
    environment: 'environment',
  },
  spans: {
    traceId: 'trace_id',
    parentId: 'parent_id',
    name: 'name',
    type: 'type',
    operation: 'operation',
    model: 'model',
    modelParameters: 'model_parameters',
    promptTokens: 'prompt_tokens',
    completionTokens: 'completion_tokens',
    totalTokens: 'total_tokens',
    usageDetails: 'usage_details',
    cost: 'cost',
    costSource: 'cost_source',
    costDetails: 'cost_details',
    unpricedUsage: 'unpriced_usage',
    input: 'input',
    output: 'output',
    metadata: 'metadata',
    attributes: 'attributes',
    startTime: 'start_time',
    endTime: 'end_time',
    level: 'level',
    statusMessage: 'status_message',
  },
  scores: {
    traceId: 'trace_id',
    spanId: 'span_id',
    name: 'name',
    value: 'value',
    dataType: 'data_type',
    comment: 'comment',
    metadata: 'metadata',
    source: 'source',
    timestamp: 'timestamp',
    authorUserId: 'author_user_id',
    authorEmail: 'author_email',
  },
};
