import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A span's `attributes` no longer store again the attribute its input or output was taken from
 * as it is (an OTLP `gen_ai.prompt`, `input.value`…, a quarter of a span row): the row names the
 * key in `input_attribute` / `output_attribute`, and `spanlog_span_attributes` puts the value
 * back on read, so every read answers the attributes whole as before. A row merged into keeps
 * its attributes whole again (the upsert), so a later input from another event can never be
 * read back as an attribute it did not send. Rows written before keep their attributes whole
 * and both keys null; telemetry version 3 rebuilds them into the lean form.
 */
export class SpanAttributeCopies1766300000000 implements MigrationInterface {
  name = 'SpanAttributeCopies1766300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE spans ADD COLUMN input_attribute text, ADD COLUMN output_attribute text;
      CREATE OR REPLACE FUNCTION spanlog_span_attributes(attributes jsonb, input_attribute text, output_attribute text, input jsonb, output jsonb) RETURNS jsonb
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT CASE WHEN input_attribute IS NULL AND output_attribute IS NULL THEN attributes
                      ELSE attributes
                           || CASE WHEN input_attribute IS NULL THEN '{}'::jsonb ELSE jsonb_build_object(input_attribute, input) END
                           || CASE WHEN output_attribute IS NULL THEN '{}'::jsonb ELSE jsonb_build_object(output_attribute, output) END
                 END
        $$;
    `);
  }

  /** The attributes whole again in every row, then the keys go. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE spans SET attributes = spanlog_span_attributes(attributes, input_attribute, output_attribute, input, output)
       WHERE input_attribute IS NOT NULL OR output_attribute IS NOT NULL;
      ALTER TABLE spans DROP COLUMN input_attribute, DROP COLUMN output_attribute;
      DROP FUNCTION spanlog_span_attributes(jsonb, text, text, jsonb, jsonb);
    `);
  }
}
