import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { SeqTokenCodec } from '@app/domain';
import {
  DatasetStore,
  EvaluatorStore,
  LlmConnectionStore,
  ModelDefinitionStore,
  PasswordVerifier,
  PromptTemplateStore,
  RunResultsQuery,
  AnnotationQueueStore,
  ScoreConfigStore,
  SecretBox,
} from '@app/persistence';
import { AuditPublisher } from './audit/audit.publisher';
import { ApiKeyGuard } from './auth/api-key.guard';
import { FailedAuthLimiter } from './auth/failed-auth-limiter';
import { ReadReplicaMonitor } from './consistency/read-replica';
import { VisibilityService } from './consistency/visibility.service';
import { HealthController } from './health/health.controller';
import { InfrastructureModule } from './infrastructure/infrastructure.module';
import { READ_DB } from './infrastructure/read-db';
import { apiMetricsRegistry } from './metrics/api-metrics';
import { MetricsController } from './metrics/metrics.controller';
import { McpController } from './mcp/mcp.controller';
import { McpToolsService } from './mcp/mcp-tools.service';
import { OpenApiController } from './openapi/openapi.controller';
import { AccessService } from './access/access.service';
import { EvaluatorTestService } from './evaluators/evaluator-test.service';
import { EvaluatorsService } from './evaluators/evaluators.service';
import { LlmConnectionsService } from './llm-connections/llm-connections.service';
import { TenancyService } from './tenancy/tenancy.service';
import { AuthController } from './sessions/auth.controller';
import { AuthService } from './sessions/auth.service';
import { LoginThrottle } from './sessions/login-throttle';
import { SessionGuard } from './sessions/session.guard';
import { IngestService } from './ingestion/ingest.service';
import { LangfuseController } from './langfuse/langfuse.controller';
import { LangfuseDatasetsController } from './langfuse/langfuse-datasets.controller';
import { DatasetsController } from './datasets/datasets.controller';
import { DatasetsService } from './datasets/datasets.service';
import { DatasetEditsService } from './datasets/dataset-edits.service';
import { DatasetReadsService } from './datasets/dataset-reads.service';
import { LangfusePromptsService } from './langfuse/langfuse-prompts.service';
import { LangfuseIngestionService } from './langfuse/langfuse-ingestion.service';
import { LangfuseScoreConfigsService } from './langfuse/langfuse-score-configs.service';
import { OtelIngestController } from './ingestion/otel-ingest.controller';
import { ScoresIngestController } from './ingestion/scores-ingest.controller';
import { RouteModelController } from './routing/route-model.controller';
import { RouteModelService } from './routing/route-model.service';
import { PromptTemplatesController } from './prompts/prompt-templates.controller';
import { PromptTemplatesService } from './prompts/prompt-templates.service';
import { PromptReadsService } from './prompts/prompt-reads.service';
import { StatsService } from './stats/stats.service';
import { CostsController } from './costs/costs.controller';
import { CostsService } from './costs/costs.service';
import { MonitorsService } from './monitors/monitors.service';
import { ModelsService } from './models/models.service';
import { AnnotationQueuesService } from './scores/annotation-queues.service';
import { HandScoresService } from './scores/hand-scores.service';
import { ScoreConfigsService } from './scores/score-configs.service';
import { TraceGroupReadsService } from './trace-groups/trace-group-reads.service';
import { TraceReadsService } from './traces/trace-reads.service';
import { QuotaService } from './quota/quota.service';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { TracesIngestController } from './ingestion/traces-ingest.controller';
import { TracesController } from './traces/traces.controller';
import { TracesService } from './traces/traces.service';
import { TraceExportService } from './traces/trace-export.service';
import { ProjectTracesExportController } from './traces/project-traces-export.controller';
import { TraceGroupsController } from './trace-groups/trace-groups.controller';
import { TraceGroupsService } from './trace-groups/trace-groups.service';

@Module({
  imports: [
    InfrastructureModule,
    RateLimitModule,
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => ({
        secret: c.jwtSecret,
        signOptions: { algorithm: 'HS256' },
        verifyOptions: { algorithms: ['HS256'] },
      }),
    }),
  ],
  controllers: [
    HealthController,
    MetricsController,
    TracesIngestController,
    OtelIngestController,
    TracesController,
    AuthController,
    ScoresIngestController,
    RouteModelController,
    PromptTemplatesController,
    LangfuseController,
    LangfuseDatasetsController,
    DatasetsController,
    TraceGroupsController,
    CostsController,
    McpController,
    ProjectTracesExportController,
    OpenApiController,
  ],
  providers: [
    ApiKeyGuard,
    { provide: FailedAuthLimiter, useFactory: () => new FailedAuthLimiter() },
    SessionGuard,
    AuthService,
    LoginThrottle,
    AuditPublisher,
    AccessService,
    TenancyService,
    EvaluatorsService,
    EvaluatorTestService,
    LlmConnectionsService,
    TraceReadsService,
    McpToolsService,
    TraceExportService,
    TraceGroupReadsService,
    PromptReadsService,
    StatsService,
    CostsService,
    MonitorsService,
    ModelsService,
    { provide: ModelDefinitionStore, inject: [DataSource], useFactory: (ds: DataSource) => new ModelDefinitionStore(ds) },
    ScoreConfigsService,
    HandScoresService,
    AnnotationQueuesService,
    {
      provide: EvaluatorStore,
      inject: [DataSource, APP_CONFIG],
      useFactory: (ds: DataSource, c: AppConfig) => new EvaluatorStore(ds, new SecretBox(c.secretKey)),
    },
    {
      provide: LlmConnectionStore,
      inject: [DataSource, APP_CONFIG],
      useFactory: (ds: DataSource, c: AppConfig) => new LlmConnectionStore(ds, new SecretBox(c.secretKey)),
    },
    PromptTemplatesService,
    { provide: PromptTemplateStore, inject: [DataSource], useFactory: (ds: DataSource) => new PromptTemplateStore(ds) },
    { provide: ScoreConfigStore, inject: [DataSource], useFactory: (ds: DataSource) => new ScoreConfigStore(ds) },
    { provide: AnnotationQueueStore, inject: [DataSource], useFactory: (ds: DataSource) => new AnnotationQueueStore(ds) },
    IngestService,
    DatasetsService,
    DatasetReadsService,
    DatasetEditsService,
    { provide: DatasetStore, inject: [DataSource], useFactory: (ds: DataSource) => new DatasetStore(ds) },
    { provide: RunResultsQuery, inject: [READ_DB], useFactory: (ds: DataSource) => new RunResultsQuery(ds) },
    LangfuseIngestionService,
    LangfusePromptsService,
    LangfuseScoreConfigsService,
    QuotaService,
    TracesService,
    TraceGroupsService,
    VisibilityService,
    RouteModelService,
    { provide: SeqTokenCodec, inject: [APP_CONFIG], useFactory: (c: AppConfig) => new SeqTokenCodec(c.jwtSecret) },
    { provide: PasswordVerifier, useFactory: () => new PasswordVerifier() },
    ReadReplicaMonitor,
    { provide: Registry, inject: [ReadReplicaMonitor], useFactory: apiMetricsRegistry },
  ],
})
export class AppModule {}
