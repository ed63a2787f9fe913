import type { EntityManager } from 'typeorm';

export interface ProjectionCheckpoint {
  projection: string;
  version: number;
  /** Stream name, prefix included. */
  stream: string;
  /** The last stream sequence the projection's tables were built to. */
  seq: number;
}

/** Records how far a projection version was built; written in the transaction that built it. */
export async function saveCheckpoint(manager: EntityManager, c: ProjectionCheckpoint): Promise<void> {
  await manager.query(
    `INSERT INTO projection_checkpoints (projection, version, stream, seq, updated_at) VALUES ($1, $2, $3, $4, now())
     ON CONFLICT (projection, version, stream) DO UPDATE SET seq = excluded.seq, updated_at = excluded.updated_at`,
    [c.projection, c.version, c.stream, c.seq],
  );
}

