import type { Registry } from 'prom-client';
import { acceptedEvents, acceptedSpans, httpRequestDuration, httpRequests, metricsRegistry, publishDuration } from '@app/metrics';

/** What the API's `/metrics` shows besides the process metrics: a metric the API moves is one more entry. */
export const apiMetricsRegistry = (): Registry =>
  metricsRegistry([httpRequests, httpRequestDuration, acceptedEvents, acceptedSpans, publishDuration]);
