import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { SeqTokenCodec } from '@app/domain';
import { EvaluatorStore, PasswordVerifier } from '@app/persistence';
import { AuditPublisher } from './audit/audit.publisher';
import { ApiKeyGuard } from './auth/api-key.guard';
import { VisibilityService } from './consistency/visibility.service';
import { HealthController } from './health/health.controller';
import { InfrastructureModule } from './infrastructure/infrastructure.module';
import { EvaluatorsService } from './rpc/evaluators.service';
import { TenancyService } from './rpc/tenancy.service';
import { AuthController } from './sessions/auth.controller';
import { AuthService } from './sessions/auth.service';
import { SessionGuard } from './sessions/session.guard';
import { IngestService } from './ingestion/ingest.service';
import { OtelIngestController } from './ingestion/otel-ingest.controller';
import { ScoresIngestController } from './ingestion/scores-ingest.controller';
import { QuotaService } from './quota/quota.service';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { TracesIngestController } from './ingestion/traces-ingest.controller';
import { TracesController } from './traces/traces.controller';
import { TracesService } from './traces/traces.service';

@Module({
  imports: [
    InfrastructureModule,
    RateLimitModule,
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => ({ secret: c.jwtSecret, signOptions: { algorithm: 'HS256' }, verifyOptions: { algorithms: ['HS256'] } }),
    }),
  ],
  controllers: [HealthController, TracesIngestController, OtelIngestController, TracesController, AuthController, ScoresIngestController],
  providers: [ApiKeyGuard, SessionGuard, AuthService, AuditPublisher, TenancyService, EvaluatorsService, { provide: EvaluatorStore, inject: [DataSource], useFactory: (ds: DataSource) => new EvaluatorStore(ds) }, IngestService, QuotaService, TracesService, VisibilityService, { provide: SeqTokenCodec, inject: [APP_CONFIG], useFactory: (c: AppConfig) => new SeqTokenCodec(c.jwtSecret) }, { provide: PasswordVerifier, useFactory: () => new PasswordVerifier() }],
})
export class AppModule {}
