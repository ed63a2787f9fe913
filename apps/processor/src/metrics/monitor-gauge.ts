import { Gauge } from 'prom-client';
import type { DataSource } from 'typeorm';
import { MONITOR_STATE_GAUGE } from '@app/domain';
import { monitorEvaluationAges, monitorStates } from '@app/persistence';

/**
 * `spanlog_monitor_state{project,monitor}`: each enabled, evaluated monitor's state as 0 OK,
 * 1 ALERT, 2 NO_DATA (README "Monitors"), read from Postgres when scraped, so every processor
 * shows the same values. A monitor not evaluated yet has no series; when Postgres cannot be
 * read the series are left out rather than kept at a stale value.
 */
export function monitorStateGauge(ds: DataSource): Gauge {
  return new Gauge({
    name: 'spanlog_monitor_state',
    help: 'State of each monitor: 0 OK, 1 ALERT, 2 NO_DATA',
    labelNames: ['project', 'monitor'] as const,
    registers: [],
    async collect() {
      this.reset();
      try {
        for (const m of await monitorStates(ds)) this.set({ project: m.projectId, monitor: m.id }, MONITOR_STATE_GAUGE[m.state]);
      } catch {
        this.reset();
      }
    },
  });
}

/**
 * `spanlog_monitor_evaluation_age_seconds{project,monitor}`: seconds since each enabled monitor
 * was last evaluated (since its creation before its first), read like the state gauge. It grows
 * while rounds are skipped (a rebuild, a lagging projection) or the monitor is (stats of its
 * window awaiting their recount), which the state gauge cannot show: alert on it staying above
 * a few rounds.
 */
export function monitorEvaluationAgeGauge(ds: DataSource): Gauge {
  return new Gauge({
    name: 'spanlog_monitor_evaluation_age_seconds',
    help: 'Seconds since each enabled monitor was last evaluated',
    labelNames: ['project', 'monitor'] as const,
    registers: [],
    async collect() {
      this.reset();
      try {
        for (const m of await monitorEvaluationAges(ds)) this.set({ project: m.projectId, monitor: m.id }, m.seconds);
      } catch {
        this.reset();
      }
    },
  });
}
