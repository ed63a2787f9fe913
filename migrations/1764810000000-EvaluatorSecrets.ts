import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Evaluator secrets encrypted at rest: the header values (`headers_sealed`) and the signing
 * secret every webhook call is signed with (`signing_secret_sealed`), each sealed with
 * AES-256-GCM under SPANLOG_SECRET_KEY (SecretBox). A migration has no key, so rows stored in
 * plaintext before keep their `headers` until the API or the processor starts: both seal every
 * plaintext row (and give it a signing secret) before they serve, and anything that reads a row
 * still in plaintext (a replica of the old version wrote it) seals it first. Once no
 * deployment runs a version older than this one, a later migration can drop `headers`.
 */
export class EvaluatorSecrets1764810000000 implements MigrationInterface {
  name = 'EvaluatorSecrets1764810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE evaluators
        ALTER COLUMN headers DROP NOT NULL,
        ALTER COLUMN headers DROP DEFAULT,
        ADD COLUMN headers_sealed text,
        ADD COLUMN signing_secret_sealed text,
        ADD CONSTRAINT evaluators_headers_one_form CHECK ((headers IS NULL) = (headers_sealed IS NOT NULL)),
        ADD CONSTRAINT evaluators_sealed_signed CHECK (headers_sealed IS NULL OR signing_secret_sealed IS NOT NULL);
    `);
  }

  /** A migration has no key to open the sealed values with: going back loses every header value and signing secret. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE evaluators DROP CONSTRAINT evaluators_headers_one_form, DROP CONSTRAINT evaluators_sealed_signed;
      UPDATE evaluators SET headers = '{}' WHERE headers IS NULL;
      ALTER TABLE evaluators
        DROP COLUMN headers_sealed,
        DROP COLUMN signing_secret_sealed,
        ALTER COLUMN headers SET DEFAULT '{}',
        ALTER COLUMN headers SET NOT NULL;
    `);
  }
}
