import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig, LOGGER, createLogger, loadConfig } from '@app/config';
import { ChunkReader, NatsResources } from '@app/eventlog';
import { EvaluatorStore, MonitorStore, ProjectionCheckpoints, SecretBox, openDataSource } from '@app/persistence';

/** Config, logger, Postgres and NATS for the processor. */
@Global()
@Module({
  providers: [
    { provide: APP_CONFIG, useFactory: () => loadConfig() },
    { provide: LOGGER, useFactory: (c: AppConfig) => createLogger('processor', c.logLevel), inject: [APP_CONFIG] },
    {
      provide: DataSource,
      inject: [APP_CONFIG, LOGGER],
      useFactory: (c: AppConfig, logger: Logger) =>
        // The telemetry projection's lanes each hold a connection for a batch; the other workers keep the ten they had.
        openDataSource({ url: c.databaseUrl, poolSize: 10 + c.applyLanes, applicationName: 'spanlog-processor' }, (err) =>
          logger.warn(
            { err: err.message, code: (err as Error & { code?: string }).code },
            'Postgres ended a connection in use; the pool opens another',
          ),
        ),
    },
    {
      provide: NatsResources,
      inject: [APP_CONFIG, LOGGER],
      useFactory: (c: AppConfig, logger: Logger) => NatsResources.open(c, 'spanlog-processor', (line) => logger.info(line)),
    },
    { provide: ChunkReader, inject: [NatsResources], useFactory: (n: NatsResources) => new ChunkReader(n.js, n.layout) },
    {
      provide: EvaluatorStore,
      inject: [DataSource, APP_CONFIG],
      useFactory: (ds: DataSource, c: AppConfig) => new EvaluatorStore(ds, new SecretBox(c.secretKey)),
    },
    { provide: MonitorStore, inject: [DataSource], useFactory: (ds: DataSource) => new MonitorStore(ds) },
    { provide: ProjectionCheckpoints, inject: [DataSource], useFactory: (ds: DataSource) => new ProjectionCheckpoints(ds) },
  ],
  exports: [APP_CONFIG, LOGGER, DataSource, NatsResources, ChunkReader, EvaluatorStore, MonitorStore, ProjectionCheckpoints],
})
export class InfrastructureModule implements OnApplicationShutdown {
  constructor(
    private readonly ds: DataSource,
    private readonly nats: NatsResources,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.nats.close().catch((err) => this.logger.warn({ err: String(err) }, 'closing NATS failed'));
    await this.ds.destroy().catch((err) => this.logger.warn({ err: String(err) }, 'closing Postgres failed'));
  }
}
