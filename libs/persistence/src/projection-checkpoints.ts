import type { DataSource, EntityManager } from 'typeorm';

/** Which projection version's progress on which stream (prefix included). */
export interface ProjectionPosition {
  projection: string;
  version: number;
  stream: string;
}

const key = (p: ProjectionPosition) => [p.projection, p.version, p.stream];

/**
 * What each projection has applied (its watermark and the sequences above it) and which version
 * the live tables are built by. Over the pool, or over the manager of the transaction that wrote
 * the rows these record (a batch's, a swap's).
 */
export class ProjectionCheckpoints {
  constructor(private readonly db: DataSource | EntityManager) {}

  /**
   * Records, in the transaction that wrote their rows, that these stream sequences are applied,
   * and returns the watermark: every sequence at or below it is applied, dead-lettered or no
   * longer stored. Run it last in the transaction: it locks the checkpoint row until commit.
   */
  async recordApplied(position: ProjectionPosition, seqs: number[]): Promise<number> {
    const [{ w }] = await this.db.query('SELECT spanlog_record_applied($1, $2, $3, $4::bigint[])::float8 AS w', [...key(position), seqs]);
    return w;
  }

  /** Moves the watermark to at least `through`: the caller knows every sequence up to it is handled. */
  async markHandledThrough(position: ProjectionPosition, through: number): Promise<number> {
    const [{ w }] = await this.db.query('SELECT spanlog_handled_through($1, $2, $3, $4)::float8 AS w', [...key(position), through]);
    return w;
  }

  /** The watermark (0 before anything was recorded). */
  async appliedThrough(position: ProjectionPosition): Promise<number> {
    const rows: { seq: string }[] = await this.db.query(
      'SELECT seq FROM projection_checkpoints WHERE projection = $1 AND version = $2 AND stream = $3',
      key(position),
    );
    return rows.length ? Number(rows[0].seq) : 0;
  }

  /** The sequences applied above the watermark, ascending: out of order, or beyond a gap. */
  async appliedAboveWatermark(position: ProjectionPosition): Promise<number[]> {
    const rows: { seq: string }[] = await this.db.query(
      `SELECT a.seq FROM projection_applied_seqs a JOIN projection_checkpoints c USING (projection, version, stream)
        WHERE a.projection = $1 AND a.version = $2 AND a.stream = $3 AND a.seq > c.seq ORDER BY a.seq`,
      key(position),
    );
    return rows.map((r) => Number(r.seq));
  }

  /**
   * Creates the checkpoint at `seq` unless it exists: a projection that ran before checkpoints
   * were recorded starts from what its consumer acknowledged, the best that is known of it
   * (`spanlog verify` checks the rows themselves).
   */
  async init(position: ProjectionPosition, seq: number): Promise<void> {
    await this.db.query(
      'INSERT INTO projection_checkpoints (projection, version, stream, seq) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
      [...key(position), seq],
    );
  }

  /** The version of a projection the live tables were built by; null before any was recorded. */
  async servingVersion(projection: string): Promise<number | null> {
    const rows: { version: number }[] = await this.db.query('SELECT version FROM projection_versions WHERE projection = $1', [projection]);
    return rows.length ? rows[0].version : null;
  }

  /** Records the version the live tables are now built by: in the transaction that swapped them in. */
  async recordServingVersion(projection: string, version: number): Promise<void> {
    await this.db.query(
      `INSERT INTO projection_versions (projection, version, built_at) VALUES ($1, $2, now())
       ON CONFLICT (projection) DO UPDATE SET version = excluded.version, built_at = excluded.built_at`,
      [projection, version],
    );
  }
}
