import type { DataSource } from 'typeorm';

/**
 * How far behind its primary a streaming replica is, in seconds: the age of the last
 * transaction it replayed, or 0 when it has replayed everything it received (an idle primary
 * sends nothing, and the age alone would then grow as though the replica fell behind). 0 on a
 * server that is not in recovery, i.e. the primary itself.
 */
export async function replicaLagSeconds(ds: DataSource): Promise<number> {
  const [{ lag }] = await ds.query(
    `SELECT CASE
       WHEN NOT pg_is_in_recovery() OR pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
       ELSE greatest(0, extract(epoch FROM now() - pg_last_xact_replay_timestamp()))
     END::float8 AS lag`,
  );
  return lag ?? 0;
}
