import type { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { NatsResources } from '@app/eventlog';
import { type MonitorStore, ModelDefinitionStore } from '@app/persistence';
import {
  consumerAppliedMessages,
  costRecomputeSpans,
  deadLetters,
  evaluatorCalls,
  evaluatorRuns,
  metricsRegistry,
  projectionAppliedEvents,
  projectionAppliedSpans,
  projectionRecountedBuckets,
  publishDuration,
  retentionDeleted,
  retentionRuns,
  scheduledRounds,
  verifyMismatches,
  verifyRounds,
} from '@app/metrics';
import { lagGauges } from './lag-gauges';
import { costRecomputeRemainingGauge } from './cost-recompute-gauge';
import { monitorEvaluationAgeGauge, monitorStateGauge } from './monitor-gauge';

/** What the processor's `/metrics` shows besides the process metrics: a metric the processor moves is one more entry. */
export const processorMetricsRegistry = (ds: DataSource, nats: NatsResources, monitors: MonitorStore): Registry =>
  metricsRegistry([
    consumerAppliedMessages,
    deadLetters,
    projectionAppliedEvents,
    projectionAppliedSpans,
    projectionRecountedBuckets,
    costRecomputeSpans,
    // The evaluation worker appends its results to INGEST.
    publishDuration,
    evaluatorCalls,
    evaluatorRuns,
    retentionRuns,
    scheduledRounds,
    retentionDeleted,
    verifyRounds,
    verifyMismatches,
    ...lagGauges(ds, nats),
    monitorStateGauge(monitors),
    monitorEvaluationAgeGauge(monitors),
    costRecomputeRemainingGauge(new ModelDefinitionStore(ds)),
  ]);
