import 'reflect-metadata';
import { MonitorStore } from '@app/persistence';
import { seedProject, useTestDatabase } from '@app/persistence/testing/test-database';
import { noTrafficMonitor } from '../monitors/testing/monitor-fixtures';
import { monitorEvaluationAgeGauge, monitorStateGauge } from './monitor-gauge';

describe('monitor gauges', () => {
  const db = useTestDatabase();

  it('count enabled monitors per state and show the oldest evaluation, naming no project or monitor', async () => {
    const ds = db.ds;
    const monitors = new MonitorStore(ds);
    // No monitor enabled: none is late.
    expect((await monitorEvaluationAgeGauge(monitors).get()).values).toEqual([{ labels: {}, value: 0 }]);
    const { projectId } = await seedProject(ds);
    const monitor = (name: string, enabled: boolean) => monitors.create(projectId, noTrafficMonitor(name, enabled));
    const evaluated = await monitor('evaluated', true);
    const alerting = await monitor('alerting', true);
    const never = await monitor('never evaluated', true);
    const disabled = await monitor('disabled', false);
    await ds.query(
      `UPDATE monitors SET state = 'OK', created_at = now() - interval '2 hours', evaluated_at = now() - interval '10 minutes' WHERE id = $1`,
      [evaluated.id],
    );
    await ds.query(`UPDATE monitors SET state = 'ALERT', evaluated_at = now() WHERE id = ANY($1)`, [[alerting.id, disabled.id]]);
    await ds.query(`UPDATE monitors SET created_at = now() - interval '1 hour' WHERE id = $1`, [never.id]);

    const states = (await monitorStateGauge(monitors).get()).values;
    expect(Object.fromEntries(states.map((v) => [v.labels.state, v.value]))).toEqual({ OK: 1, ALERT: 1, NO_DATA: 0, PENDING: 1 });
    const ages = (await monitorEvaluationAgeGauge(monitors).get()).values;
    expect(ages.map((v) => [v.labels, Math.round(v.value)])).toEqual([[{}, 3600]]);
  });
});
