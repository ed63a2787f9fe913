import { Gauge, type Registry } from 'prom-client';
import { acceptedEvents, acceptedSpans, httpRequestDuration, httpRequests, metricsRegistry, publishDuration } from '@app/metrics';
import type { ReadReplicaMonitor } from '../consistency/read-replica';

/** What the API's `/metrics` shows besides the process metrics: a metric the API moves is one more entry. */
export const apiMetricsRegistry = (replica: ReadReplicaMonitor): Registry =>
  metricsRegistry([
    httpRequests,
    httpRequestDuration,
    acceptedEvents,
    acceptedSpans,
    publishDuration,
    ...(replica.configured ? readReplicaGauges(replica) : []),
  ]);

/**
 * Read when scraped, as the processor's lag gauges are; a value that cannot be read is left out
 * rather than kept, since a stale lag would look healthy. Only with DATABASE_READ_URL set.
 */
function readReplicaGauges(replica: ReadReplicaMonitor): Gauge[] {
  const gauge = (name: string, help: string, pick: (lag: Awaited<ReturnType<ReadReplicaMonitor['lag']>>) => number | null) =>
    new Gauge({
      name,
      help,
      registers: [],
      async collect() {
        this.reset();
        const value = pick(await replica.lag().catch(() => ({ status: 'unreachable' as const, lagSeconds: null, lagMessages: null })));
        if (value !== null) this.set(value);
      },
    });
  return [
    gauge(
      'spanlog_read_replica_lag_seconds',
      'Age of the last transaction the read replica (DATABASE_READ_URL) replayed; 0 when it has replayed all it received',
      (l) => l.lagSeconds,
    ),
    gauge(
      'spanlog_read_replica_lag_messages',
      "Telemetry messages applied on the primary that the read replica does not show yet (primary's watermark minus the replica's)",
      (l) => l.lagMessages,
    ),
  ];
}
