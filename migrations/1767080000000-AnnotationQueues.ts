import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Annotation queues (issue 30): a project's queues (a name is unique in its project) and their
 * items, a trace or a span each. Traces are read models that a rebuild replaces, so an item
 * names its trace by id without a foreign key; `position` keeps the order items were added in.
 * `locked_by`/`locked_until` hold an item for one reviewer: `next` takes the first free one.
 */
export class AnnotationQueues1767080000000 implements MigrationInterface {
  name = 'AnnotationQueues1767080000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE annotation_queues (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        score_config_ids uuid[] NOT NULL DEFAULT '{}',
        archived boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (project_id, name)
      )`);
    await q.query(`
      CREATE TABLE annotation_queue_items (
        id uuid PRIMARY KEY,
        queue_id uuid NOT NULL REFERENCES annotation_queues(id) ON DELETE CASCADE,
        project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        position bigint GENERATED ALWAYS AS IDENTITY,
        object_type text NOT NULL CHECK (object_type IN ('trace', 'span')),
        trace_id uuid NOT NULL,
        span_id uuid,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'skipped')),
        completed_by_user_id text,
        completed_by_email text,
        completed_at timestamptz,
        locked_by_user_id text,
        locked_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((object_type = 'span') = (span_id IS NOT NULL))
      )`);
    // One item per trace or span in a queue: adding it again changes nothing.
    await q.query(
      'CREATE UNIQUE INDEX annotation_queue_items_target_key ON annotation_queue_items (queue_id, trace_id, span_id) NULLS NOT DISTINCT',
    );
    await q.query('CREATE INDEX annotation_queue_items_queue_position_idx ON annotation_queue_items (queue_id, position)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE annotation_queue_items');
    await q.query('DROP TABLE annotation_queues');
  }
}
