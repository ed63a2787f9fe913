import { Module } from '@nestjs/common';
import { InfrastructureModule } from './infrastructure/infrastructure.module';
import { AuditProjection } from './projections/audit/audit.projection';
import { TelemetryProjection } from './projections/telemetry/telemetry.projection';

@Module({
  imports: [InfrastructureModule],
  providers: [TelemetryProjection, AuditProjection],
})
export class ProcessorModule {}
