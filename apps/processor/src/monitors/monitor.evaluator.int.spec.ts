import 'reflect-metadata';
import pino from 'pino';
import type { AppConfig } from '@app/config';
import type { NatsResources } from '@app/eventlog';
import { MonitorStore, ProjectionCheckpoints } from '@app/persistence';
import { closeTestStreams, openTestStreams, testStreamPrefix } from '@app/eventlog/testing/test-streams';
import { seedProject, useTestDatabase } from '@app/persistence/testing/test-database';
import { modelStatsProjection, telemetryProjection } from '@app/projections';
import type { MonitorEvaluator } from './monitor.evaluator';
import { monitorEvaluatorOn, noTrafficMonitor, serveCurrentProjections } from './testing/monitor-fixtures';

const MAX_LAG = 2;

/**
 * The evaluator's guards against judging stats that are not whole: each one, switched on
 * alone, must leave a monitor that would otherwise change state as it was, with no history.
 */
describe('monitor evaluator guards', () => {
  const db = useTestDatabase();
  let nats: NatsResources;
  let evaluator: MonitorEvaluator;
  const logs: { level: number; msg: string; monitor?: string }[] = [];

  beforeAll(async () => {
    nats = await openTestStreams('monitor-guards-test', testStreamPrefix('M'));
    const config = { monitorIntervalMs: 60_000, monitorSettleMs: -300_000, monitorMaxLagMessages: MAX_LAG } as AppConfig;
    evaluator = monitorEvaluatorOn(
      db.ds,
      nats,
      config,
      pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) }),
    );
  });

  afterAll(() => closeTestStreams(nats));

  beforeEach(async () => {
    await serveCurrentProjections(db.ds);
    await db.ds.query('DELETE FROM stats_5m_dirty');
  });

  /** A monitor that any evaluation moves from no state to ALERT: fewer than one call in an empty project. */
  const quietMonitor = async () => {
    const { projectId } = await seedProject(db.ds);
    const monitor = await new MonitorStore(db.ds).create(projectId, noTrafficMonitor('no traffic'));
    return { projectId, id: monitor.id };
  };
  const stateOf = async (id: string) => {
    const [row] = await db.ds.query(
      'SELECT state, (SELECT count(*)::int FROM monitor_history h WHERE h.monitor_id = m.id) AS changes FROM monitors m WHERE id = $1',
      [id],
    );
    return row as { state: string | null; changes: number };
  };

  it('evaluates when the stats are whole (the control for the cases below)', async () => {
    const monitor = await quietMonitor();
    await evaluator.runRound();
    expect(await stateOf(monitor.id)).toEqual({ state: 'ALERT', changes: 1 });
  });

  it.each([telemetryProjection, modelStatsProjection])(
    'skips the round while the $name projection serves an older version than the code builds',
    async (projection) => {
      const monitor = await quietMonitor();
      await new ProjectionCheckpoints(db.ds).recordServingVersion(projection.name, projection.version - 1);
      await evaluator.runRound();
      expect(await stateOf(monitor.id)).toEqual({ state: null, changes: 0 });

      await new ProjectionCheckpoints(db.ds).recordServingVersion(projection.name, projection.version);
      await evaluator.runRound();
      expect(await stateOf(monitor.id)).toEqual({ state: 'ALERT', changes: 1 });
    },
  );

  it('skips a project whose stats bucket inside the window awaits its recount, and evaluates the others', async () => {
    const marked = await quietMonitor();
    const other = await quietMonitor();
    await db.ds.query(`INSERT INTO stats_5m_dirty (project_id, bucket) VALUES ($1, date_bin('5 minutes', now(), 'epoch'))`, [
      marked.projectId,
    ]);
    await evaluator.runRound();
    expect(await stateOf(marked.id)).toEqual({ state: null, changes: 0 });
    expect(await stateOf(other.id)).toEqual({ state: 'ALERT', changes: 1 });

    await db.ds.query('DELETE FROM stats_5m_dirty');
    await evaluator.runRound();
    expect(await stateOf(marked.id)).toEqual({ state: 'ALERT', changes: 1 });
  });

  it('evaluates a monitor whose project has buckets awaiting their recount only before its window', async () => {
    const monitor = await quietMonitor();
    await db.ds.query(
      `INSERT INTO stats_5m_dirty (project_id, bucket) VALUES ($1, date_bin('5 minutes', now() - interval '1 hour', 'epoch'))`,
      [monitor.projectId],
    );
    await evaluator.runRound();
    expect(await stateOf(monitor.id)).toEqual({ state: 'ALERT', changes: 1 });
  });

  it('warns once about a monitor that pending recounts in its window have kept unevaluated for 10 rounds, and says when it is evaluated again', async () => {
    const monitor = await quietMonitor();
    await db.ds.query(`UPDATE monitors SET created_at = now() - interval '9 minutes' WHERE id = $1`, [monitor.id]);
    await db.ds.query(`INSERT INTO stats_5m_dirty (project_id, bucket) VALUES ($1, date_bin('5 minutes', now(), 'epoch'))`, [
      monitor.projectId,
    ]);
    const about = () => logs.filter((l) => l.monitor === monitor.id).map((l) => [l.level, l.msg]);
    await evaluator.runRound();
    expect(about()).toEqual([]);

    await db.ds.query(`UPDATE monitors SET created_at = now() - interval '11 minutes' WHERE id = $1`, [monitor.id]);
    await evaluator.runRound();
    await evaluator.runRound();
    expect(about()).toEqual([
      [40, expect.stringMatching(/^monitor not evaluated for a while: stats in its window keep awaiting their recount/)],
    ]);
    expect(await stateOf(monitor.id)).toEqual({ state: null, changes: 0 });

    await db.ds.query('DELETE FROM stats_5m_dirty');
    await evaluator.runRound();
    expect(await stateOf(monitor.id)).toEqual({ state: 'ALERT', changes: 1 });
    expect(about().map(([, msg]) => msg)).toEqual([expect.any(String), 'monitor changed state', 'monitor evaluated again']);
  });

  it('skips the round while the telemetry projection is more than SPANLOG_MONITOR_MAX_LAG messages behind the stream', async () => {
    const monitor = await quietMonitor();
    for (let i = 0; i <= MAX_LAG; i++) await nats.js.publish(nats.layout.ingestSubject('org', 'project', 'batch'), new Uint8Array());
    await evaluator.runRound();
    expect(await stateOf(monitor.id)).toEqual({ state: null, changes: 0 });
  });
});
