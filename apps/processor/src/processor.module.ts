import { Module } from '@nestjs/common';
import { EvaluationWorker } from './evaluations/evaluation.worker';
import { InfrastructureModule } from './infrastructure/infrastructure.module';
import { AuditProjection } from './projections/audit/audit.projection';
import { TelemetryProjection } from './projections/telemetry/telemetry.projection';
import { VerifyScheduler } from './projections/telemetry/verify.scheduler';
import { UsageProjection } from './projections/usage/usage.projection';
import { EvalJobRelay } from './reactors/eval-job-relay';
import { UsageRelay } from './reactors/usage-relay';
import { RetentionScheduler } from './retention/retention.scheduler';

@Module({
  imports: [InfrastructureModule],
  providers: [TelemetryProjection, AuditProjection, UsageProjection, UsageRelay, EvalJobRelay, EvaluationWorker, RetentionScheduler, VerifyScheduler],
})
export class ProcessorModule {}
