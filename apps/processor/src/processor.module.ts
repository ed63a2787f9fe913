import { Module } from '@nestjs/common';
import { InfrastructureModule } from './infrastructure/infrastructure.module';
import { AuditProjection } from './projections/audit/audit.projection';
import { TelemetryProjection } from './projections/telemetry/telemetry.projection';
import { UsageProjection } from './projections/usage/usage.projection';
import { UsageRelay } from './reactors/usage-relay';

@Module({
  imports: [InfrastructureModule],
  providers: [TelemetryProjection, AuditProjection, UsageProjection, UsageRelay],
})
export class ProcessorModule {}
