import 'reflect-metadata';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import type { NatsResources } from '@app/eventlog';
import { MonitorStore, createDataSource } from '@app/persistence';
import { closeTestStreams, openTestStreams, testStreamPrefix } from '@app/eventlog/testing/test-streams';
import { seedProject, useTestDatabase } from '@app/persistence/testing/test-database';
import type { MonitorEvaluator } from './monitor.evaluator';
import { monitorEvaluatorOn, noTrafficMonitor, serveCurrentProjections } from './testing/monitor-fixtures';

/** Enough monitors that a round takes long enough for two unlocked rounds to overlap. */
const MONITORS = 60;

/** Two processors, each with its own pool and NATS connection, running a round at the same moment. */
describe('monitor evaluation by a fleet', () => {
  // Declared before the database: jest runs afterAll hooks in declaration order, and these still use it.
  afterAll(async () => {
    await closeTestStreams(nats[0]);
    for (const n of nats.slice(1)) await n.close();
    await other?.destroy();
  });
  const db = useTestDatabase();
  let other: DataSource;
  const nats: NatsResources[] = [];
  const evaluators: MonitorEvaluator[] = [];
  const prefix = testStreamPrefix('F');

  beforeAll(async () => {
    other = createDataSource({ url: db.url, poolSize: 4 });
    await other.initialize();
    await serveCurrentProjections(db.ds);
    const config = { monitorIntervalMs: 60_000, monitorSettleMs: -300_000, monitorMaxLagMessages: 10_000 } as AppConfig;
    for (const [i, ds] of [db.ds, other].entries()) {
      nats.push(await openTestStreams(`monitor-fleet-test-${i}`, prefix));
      evaluators.push(monitorEvaluatorOn(ds, nats[i], config, pino({ level: 'silent' })));
    }
  });

  it('writes one history row and one audit event per change of state when two processors run a round at once', async () => {
    const ds = db.ds;
    const { projectId } = await seedProject(ds);
    // Fewer than one call in an empty project: every evaluation moves each from no state to ALERT.
    for (let i = 0; i < MONITORS; i++) {
      await new MonitorStore(ds).create(projectId, noTrafficMonitor(`no traffic ${i}`));
    }

    await Promise.all(evaluators.map((e) => e.runRound()));
    await Promise.all(evaluators.map((e) => e.runRound()));

    const [history] = await ds.query(
      `SELECT count(*)::int AS rows, count(DISTINCT monitor_id)::int AS monitors FROM monitor_history h JOIN monitors m ON m.id = h.monitor_id WHERE m.project_id = $1`,
      [projectId],
    );
    expect(history).toEqual({ rows: MONITORS, monitors: MONITORS });
    const [{ alert }] = await ds.query(`SELECT count(*) FILTER (WHERE state = 'ALERT')::int AS alert FROM monitors WHERE project_id = $1`, [
      projectId,
    ]);
    expect(alert).toBe(MONITORS);
    const audit = await nats[0].jsm.streams.info(nats[0].layout.streamName('audit'));
    expect(audit.state.messages).toBe(MONITORS);
  });
});
