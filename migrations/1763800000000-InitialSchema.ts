import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenancy (organizations, users, projects, API keys) and the telemetry read models.
 * Telemetry rows are keyed per project, and every merged field records the version that
 * wrote it in `versions`, so the projection's upsert can apply the CONTRACT merge rule
 * row by row in SQL (see libs/persistence/src/telemetry/telemetry-writer.ts).
 */
export class InitialSchema1763800000000 implements MigrationInterface {
  name = 'InitialSchema1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organizations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'pro', 'growth', 'team', 'enterprise')),
        rate_limit_per_second integer CHECK (rate_limit_per_second > 0),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL CHECK (length(email) BETWEEN 3 AND 320),
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX users_email_key ON users (lower(email));
      CREATE TABLE memberships (
        org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org_id, user_id)
      );
      CREATE INDEX memberships_user_idx ON memberships (user_id);
      CREATE TABLE projects (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (org_id, name)
      );
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        prefix text NOT NULL,
        key_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      );
      CREATE INDEX api_keys_project_idx ON api_keys (project_id);

      CREATE FUNCTION spanlog_newer(incoming jsonb, current jsonb, field text) RETURNS boolean
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT incoming ? field
             AND (current IS NULL OR NOT current ? field
                  OR (incoming->>field) COLLATE "C" > (current->>field) COLLATE "C")
        $$;
      CREATE FUNCTION spanlog_merge_versions(a jsonb, b jsonb) RETURNS jsonb
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT coalesce(jsonb_object_agg(k,
                   CASE WHEN NOT a ? k THEN b->k
                        WHEN NOT b ? k THEN a->k
                        WHEN (b->>k) COLLATE "C" > (a->>k) COLLATE "C" THEN b->k
                        ELSE a->k END), '{}'::jsonb)
            FROM (SELECT jsonb_object_keys(a) UNION SELECT jsonb_object_keys(b)) AS keys (k)
        $$;

      CREATE TABLE traces (
        project_id uuid NOT NULL,
        id uuid NOT NULL,
        otel_trace_id text,
        external_id text,
        name text,
        body_timestamp timestamptz,
        min_span_start timestamptz,
        first_event_time timestamptz NOT NULL,
        "timestamp" timestamptz GENERATED ALWAYS AS (coalesce(body_timestamp, min_span_start, first_event_time)) STORED,
        user_id text,
        session_id text,
        metadata jsonb,
        tags text[],
        input jsonb,
        output jsonb,
        release text,
        version text,
        environment text,
        created_at timestamptz NOT NULL,
        versions jsonb NOT NULL DEFAULT '{}',
        PRIMARY KEY (project_id, id)
      );
      CREATE INDEX traces_project_timestamp_idx ON traces (project_id, "timestamp" DESC, id DESC);
      CREATE INDEX traces_project_created_idx ON traces (project_id, created_at);
      CREATE INDEX traces_project_user_idx ON traces (project_id, user_id) WHERE user_id IS NOT NULL;
      CREATE INDEX traces_project_session_idx ON traces (project_id, session_id) WHERE session_id IS NOT NULL;
      CREATE INDEX traces_tags_idx ON traces USING gin (tags);

      CREATE TABLE spans (
        project_id uuid NOT NULL,
        id uuid NOT NULL,
        trace_id uuid,
        otel_span_id text,
        external_id text,
        parent_id uuid,
        name text,
        type text,
        model text,
        model_parameters jsonb,
        prompt_tokens bigint CHECK (prompt_tokens >= 0),
        completion_tokens bigint CHECK (completion_tokens >= 0),
        total_tokens bigint CHECK (total_tokens >= 0),
        cost double precision CHECK (cost >= 0),
        input jsonb,
        output jsonb,
        metadata jsonb,
        attributes jsonb,
        start_time timestamptz,
        end_time timestamptz,
        level text CHECK (level IN ('DEBUG', 'DEFAULT', 'WARNING', 'ERROR')),
        status_message text,
        created_at timestamptz NOT NULL,
        versions jsonb NOT NULL DEFAULT '{}',
        PRIMARY KEY (project_id, id)
      );
      CREATE INDEX spans_project_trace_idx ON spans (project_id, trace_id);

      CREATE TABLE scores (
        project_id uuid NOT NULL,
        id uuid NOT NULL,
        external_id text,
        trace_id uuid,
        span_id uuid,
        name text,
        value jsonb,
        data_type text CHECK (data_type IN ('NUMERIC', 'CATEGORICAL', 'BOOLEAN')),
        comment text,
        metadata jsonb,
        source text,
        "timestamp" timestamptz,
        created_at timestamptz NOT NULL,
        versions jsonb NOT NULL DEFAULT '{}',
        PRIMARY KEY (project_id, id)
      );
      CREATE INDEX scores_project_trace_idx ON scores (project_id, trace_id);

      CREATE TABLE projection_checkpoints (
        projection text NOT NULL,
        version integer NOT NULL,
        stream text NOT NULL,
        seq bigint NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (projection, version, stream)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE projection_checkpoints, scores, spans, traces, api_keys, projects, memberships, users, organizations;
      DROP FUNCTION spanlog_merge_versions(jsonb, jsonb);
      DROP FUNCTION spanlog_newer(jsonb, jsonb, text);
    `);
  }
}
