import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a projection has applied, recorded with its rows (DESIGN "Projections": visibility
 * means applied, not acked). `projection_checkpoints.seq` becomes the highest sequence at or
 * below which every message of the stream is applied, dead-lettered or no longer stored;
 * `projection_applied_seqs` holds the sequences applied above it, which several instances
 * and retries apply out of order. A consumer's ack floor is no proof: nats-server 2.9 moves
 * it past messages never delivered when a stream is purged.
 *
 * `spanlog_record_applied` runs last in a batch's transaction: it locks the checkpoint row
 * (instances take turns for that statement only), adds the batch's sequences and moves the
 * watermark over the contiguous run above it. `spanlog_handled_through` moves it past a range
 * the caller knows is handled (a rebuild's swap, sequences no longer in the stream).
 */
export class AppliedSequences1764500000000 implements MigrationInterface {
  name = 'AppliedSequences1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE projection_applied_seqs (
        projection text NOT NULL,
        version integer NOT NULL,
        stream text NOT NULL,
        seq bigint NOT NULL,
        PRIMARY KEY (projection, version, stream, seq)
      );

      CREATE FUNCTION spanlog_advance_checkpoint(p text, v integer, s text, w bigint) RETURNS bigint
      LANGUAGE plpgsql AS $$
      DECLARE top bigint;
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM projection_applied_seqs WHERE projection = p AND version = v AND stream = s AND seq = w + 1) THEN
          RETURN w;
        END IF;
        -- The end of the run that starts right above the watermark: the first applied sequence whose successor is not.
        SELECT a.seq INTO top FROM projection_applied_seqs a
         WHERE a.projection = p AND a.version = v AND a.stream = s AND a.seq > w
           AND NOT EXISTS (SELECT 1 FROM projection_applied_seqs b WHERE b.projection = p AND b.version = v AND b.stream = s AND b.seq = a.seq + 1)
         ORDER BY a.seq LIMIT 1;
        UPDATE projection_checkpoints SET seq = top, updated_at = now() WHERE projection = p AND version = v AND stream = s;
        DELETE FROM projection_applied_seqs WHERE projection = p AND version = v AND stream = s AND seq <= top;
        RETURN top;
      END $$;

      CREATE FUNCTION spanlog_lock_checkpoint(p text, v integer, s text) RETURNS bigint
      LANGUAGE plpgsql AS $$
      DECLARE w bigint;
      BEGIN
        INSERT INTO projection_checkpoints (projection, version, stream, seq) VALUES (p, v, s, 0) ON CONFLICT DO NOTHING;
        SELECT seq INTO w FROM projection_checkpoints WHERE projection = p AND version = v AND stream = s FOR UPDATE;
        RETURN w;
      END $$;

      CREATE FUNCTION spanlog_record_applied(p text, v integer, s text, seqs bigint[]) RETURNS bigint
      LANGUAGE plpgsql AS $$
      DECLARE w bigint := spanlog_lock_checkpoint(p, v, s);
      BEGIN
        INSERT INTO projection_applied_seqs (projection, version, stream, seq)
        SELECT p, v, s, x FROM unnest(seqs) AS x WHERE x > w
        ON CONFLICT DO NOTHING;
        RETURN spanlog_advance_checkpoint(p, v, s, w);
      END $$;

      CREATE FUNCTION spanlog_handled_through(p text, v integer, s text, through bigint) RETURNS bigint
      LANGUAGE plpgsql AS $$
      DECLARE w bigint := spanlog_lock_checkpoint(p, v, s);
      BEGIN
        IF through > w THEN
          UPDATE projection_checkpoints SET seq = through, updated_at = now() WHERE projection = p AND version = v AND stream = s;
          DELETE FROM projection_applied_seqs WHERE projection = p AND version = v AND stream = s AND seq <= through;
          w := through;
        END IF;
        RETURN spanlog_advance_checkpoint(p, v, s, w);
      END $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP FUNCTION spanlog_handled_through(text, integer, text, bigint);
      DROP FUNCTION spanlog_record_applied(text, integer, text, bigint[]);
      DROP FUNCTION spanlog_lock_checkpoint(text, integer, text);
      DROP FUNCTION spanlog_advance_checkpoint(text, integer, text, bigint);
      DROP TABLE projection_applied_seqs;
    `);
  }
}
