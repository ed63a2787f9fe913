import { Module } from '@nestjs/common';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { NatsResources } from '@app/eventlog';
import { MonitorStore } from '@app/persistence';
import { EvaluationWorker } from './evaluations/evaluation.worker';
import { TraceEvaluationPoller } from './evaluations/trace-evaluation.poller';
import { InfrastructureModule } from './infrastructure/infrastructure.module';
import { MetricsServer } from './metrics/metrics-server';
import { MonitorEvaluator } from './monitors/monitor.evaluator';
import { processorMetricsRegistry } from './metrics/processor-metrics';
import { ModelStatsRefresher } from './projections/model-stats/model-stats.refresher';
import { CostRecomputer } from './projections/telemetry/cost-recomputer';
import { PlainProjections } from './projections/plain-projections';
import { ProjectionUpgrader } from './projections/projection-upgrader';
import { TelemetryProjection } from './projections/telemetry/telemetry.projection';
import { VerifyScheduler } from './projections/telemetry/verify.scheduler';
import { EvalJobRelay } from './reactors/eval-job-relay';
import { UsageRelay } from './reactors/usage-relay';
import { RetentionScheduler } from './retention/retention.scheduler';

@Module({
  imports: [InfrastructureModule],
  providers: [
    TelemetryProjection,
    PlainProjections,
    UsageRelay,
    EvalJobRelay,
    TraceEvaluationPoller,
    EvaluationWorker,
    RetentionScheduler,
    VerifyScheduler,
    ModelStatsRefresher,
    CostRecomputer,
    ProjectionUpgrader,
    MonitorEvaluator,
    { provide: Registry, inject: [DataSource, NatsResources, MonitorStore], useFactory: processorMetricsRegistry },
    MetricsServer,
  ],
})
export class ProcessorModule {}
