import { Module } from '@nestjs/common';
import { InfrastructureModule } from './infrastructure/infrastructure.module';
import { AuditProjection } from './projections/audit/audit.projection';
import { TelemetryProjection } from './projections/telemetry/telemetry.projection';
import { UsageProjection } from './projections/usage/usage.projection';
import { UsageRelay } from './reactors/usage-relay';
import { RetentionScheduler } from './retention/retention.scheduler';

@Module({
  imports: [InfrastructureModule],
  providers: [TelemetryProjection, AuditProjection, UsageProjection, UsageRelay, RetentionScheduler],
})
export class ProcessorModule {}
