import 'reflect-metadata';
import pino from 'pino';
import type { NatsResources } from '@app/eventlog';
import { closeTestStreams, openTestStreams, testStreamPrefix } from '@app/eventlog/testing/test-streams';
import { seedProject, useTestDatabase } from '@app/persistence/testing/test-database';
import { ModelStatsRefresher } from './model-stats.refresher';
import { BACKLOG_MESSAGES } from './recount-pace';

/**
 * The refresher's pace as the telemetry projection's lag sets it: a mark past the usual settle
 * time is recounted while the projection keeps up, and waits while it drains a backlog, until
 * it is past the backlog's longer wait.
 */
describe('model stats refresher', () => {
  const db = useTestDatabase();
  let nats: NatsResources;
  let refresher: ModelStatsRefresher;
  const logs: string[] = [];

  beforeAll(async () => {
    nats = await openTestStreams('stats-refresher-test', testStreamPrefix('R'));
    refresher = new ModelStatsRefresher(
      db.ds,
      nats,
      pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line).msg) }),
    );
  });

  afterAll(() => closeTestStreams(nats));

  /** An overview mark first made `ageS` seconds ago, for a bucket of its own. */
  const markAged = async (projectId: string, ageS: number, hoursBack: number) =>
    db.ds.query(
      `INSERT INTO stats_5m_dirty (project_id, bucket, marked_at)
       VALUES ($1, date_bin('5 minutes', now() - $2 * interval '1 hour', 'epoch'), now() - $3 * interval '1 second')`,
      [projectId, hoursBack, ageS],
    );
  const marksLeft = async (projectId: string): Promise<number> =>
    (await db.ds.query('SELECT count(*)::int AS n FROM stats_5m_dirty WHERE project_id = $1', [projectId]))[0].n;

  it('recounts a mark ten seconds old while the telemetry projection keeps up', async () => {
    const { projectId } = await seedProject(db.ds);
    await markAged(projectId, 10, 1);
    await refresher.runRound();
    expect(await marksLeft(projectId)).toBe(0);
  });

  it('leaves a mark ten seconds old while the projection is more than BACKLOG_MESSAGES behind, and recounts one older than a minute', async () => {
    const { projectId } = await seedProject(db.ds);
    for (let i = 0; i <= BACKLOG_MESSAGES; i++)
      await nats.js.publish(nats.layout.ingestSubject('org', 'project', 'batch'), new Uint8Array());
    await markAged(projectId, 10, 1);
    await markAged(projectId, 70, 2);
    await refresher.runRound();
    expect(await marksLeft(projectId)).toBe(1);
    expect(logs).toContain('stats recounts wait longer while the telemetry projection drains a backlog');
  });
});
