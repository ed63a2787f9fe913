import { Gauge } from 'prom-client';
import { MONITOR_STATES } from '@app/domain';
import type { MonitorStore } from '@app/persistence';

/** Every state a monitor can be shown in, PENDING before its first evaluation; each always has a series. */
export const MONITOR_GAUGE_STATES = [...MONITOR_STATES, 'PENDING'] as const;

/**
 * `spanlog_monitors{state}`: how many enabled monitors are in each state, read from Postgres
 * when scraped, so every processor shows the same values. No label names a project or a
 * monitor: `/metrics` is unauthenticated, and the API answers unknown projects with 403
 * precisely so their ids cannot be probed. Which monitor alerts is for the dashboard, the
 * TUI and `spanlog alerts list`. When Postgres cannot be read the series are left out rather
 * than kept at stale values.
 */
export function monitorStateGauge(monitors: MonitorStore): Gauge {
  return new Gauge({
    name: 'spanlog_monitors',
    help: 'Enabled monitors per state: OK, ALERT, NO_DATA, or PENDING before their first evaluation',
    labelNames: ['state'] as const,
    registers: [],
    async collect() {
      this.reset();
      try {
        const counts = new Map((await monitors.stateCounts()).map((c) => [c.state as string, c.count]));
        for (const state of MONITOR_GAUGE_STATES) this.set({ state }, counts.get(state) ?? 0);
      } catch {
        this.reset();
      }
    },
  });
}

/**
 * `spanlog_monitor_evaluation_age_max_seconds`: the most seconds any enabled monitor has gone
 * unevaluated (since its creation before its first), read like the state gauge. It grows while
 * rounds are skipped (a rebuild, a lagging projection) or a monitor is (stats of its window
 * awaiting their recount), which the states cannot show: alert on it staying above a few
 * rounds. 0 while no monitor is enabled.
 */
export function monitorEvaluationAgeGauge(monitors: MonitorStore): Gauge {
  return new Gauge({
    name: 'spanlog_monitor_evaluation_age_max_seconds',
    help: 'Seconds since the least recently evaluated enabled monitor was evaluated',
    registers: [],
    async collect() {
      this.reset();
      try {
        this.set((await monitors.oldestEvaluationAge()) ?? 0);
      } catch {
        this.reset();
      }
    },
  });
}
