import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createMonitor } from '@app/persistence';
import { type TestDatabase, createTestDatabase } from '@app/persistence/testing/test-database';
import { monitorEvaluationAgeGauge } from './monitor-gauge';

describe('spanlog_monitor_evaluation_age_seconds', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
  });

  afterAll(() => db?.drop());

  it('shows how long ago each enabled monitor was evaluated, or created when never, so a monitor kept skipped is visible', async () => {
    const ds = db.ds;
    const [org] = await ds.query(`INSERT INTO organizations (name) VALUES ($1) RETURNING id`, [`org ${randomUUID()}`]);
    const [project] = await ds.query(`INSERT INTO projects (org_id, name) VALUES ($1, 'p') RETURNING id`, [org.id]);
    const monitor = (name: string, enabled: boolean) =>
      createMonitor(ds, project.id, { name, metric: 'calls', scoreName: null, filter: {}, windowSeconds: 300, comparison: '<', threshold: 1, enabled });
    const evaluated = await monitor('evaluated', true);
    const never = await monitor('never evaluated', true);
    await monitor('disabled', false);
    await ds.query(`UPDATE monitors SET created_at = now() - interval '2 hours', evaluated_at = now() - interval '10 minutes' WHERE id = $1`, [evaluated.id]);
    await ds.query(`UPDATE monitors SET created_at = now() - interval '1 hour' WHERE id = $1`, [never.id]);

    const { values } = await monitorEvaluationAgeGauge(ds).get();
    const ages = Object.fromEntries(values.map((v) => [v.labels.monitor, Math.round(v.value)]));
    expect(ages).toEqual({ [evaluated.id]: 600, [never.id]: 3600 });
    expect(values.every((v) => v.labels.project === project.id)).toBe(true);
  });
});
