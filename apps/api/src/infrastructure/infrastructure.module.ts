import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig, LOGGER, createLogger, loadConfig } from '@app/config';
import { ChunkPublisher, NatsResources } from '@app/eventlog';
import {
  ApiKeyLookup,
  LoginFailuresStore,
  MonitorStore,
  PrincipalCache,
  ProjectionCheckpoints,
  SessionStore,
  TenancyRepository,
  TraceGroupQueries,
  TraceQueries,
  UsageQueries,
  openDataSource,
} from '@app/persistence';
import { ApiKeyChangeListener } from '../auth/api-key-change-listener';
import { READ_DB } from './read-db';

const connectionLost = (logger: Logger, which: string) => (err: Error) =>
  logger.warn(
    { err: err.message, code: (err as Error & { code?: string }).code },
    `${which} ended a connection in use; the pool opens another`,
  );

/** Config, logger, Postgres (and its read replica when DATABASE_READ_URL names one) and NATS for the API: opened once, closed on shutdown. */
@Global()
@Module({
  providers: [
    { provide: APP_CONFIG, useFactory: () => loadConfig() },
    { provide: LOGGER, useFactory: (c: AppConfig) => createLogger('api', c.logLevel), inject: [APP_CONFIG] },
    {
      provide: DataSource,
      inject: [APP_CONFIG, LOGGER],
      useFactory: (c: AppConfig, logger: Logger) =>
        openDataSource({ url: c.databaseUrl, poolSize: 20, applicationName: 'spanlog-api' }, connectionLost(logger, 'Postgres')),
    },
    {
      provide: READ_DB,
      inject: [APP_CONFIG, LOGGER, DataSource],
      useFactory: async (c: AppConfig, logger: Logger, primary: DataSource): Promise<DataSource> => {
        if (!c.databaseReadUrl) return primary;
        const replica = await openDataSource(
          { url: c.databaseReadUrl, poolSize: 20, applicationName: 'spanlog-api-reads' },
          connectionLost(logger, 'the read replica'),
        );
        logger.info({ replica: new URL(c.databaseReadUrl).host }, 'read-model queries go to the read replica (DATABASE_READ_URL)');
        return replica;
      },
    },
    {
      provide: NatsResources,
      inject: [APP_CONFIG, LOGGER],
      useFactory: (c: AppConfig, logger: Logger) => NatsResources.open(c, 'spanlog-api', (line) => logger.info(line)),
    },
    {
      provide: ChunkPublisher,
      inject: [NatsResources],
      useFactory: (n: NatsResources) => new ChunkPublisher(n.js, n.layout, n.maxMessageBytes),
    },
    { provide: PrincipalCache, useFactory: () => new PrincipalCache() },
    {
      provide: ApiKeyChangeListener,
      inject: [APP_CONFIG, PrincipalCache, LOGGER],
      useFactory: (c: AppConfig, cache: PrincipalCache, logger: Logger) =>
        ApiKeyChangeListener.start(cache, {
          url: c.databaseUrl,
          applicationName: 'spanlog-api-key-changes',
          onListening: () => logger.info('API key principals cached: listening for key changes'),
          onLost: (err, retryInMs) =>
            logger.warn(
              { err: err && String(err), retryInMs },
              'API key change listener disconnected: every key look-up goes to Postgres until it is back',
            ),
        }),
    },
    {
      provide: ApiKeyLookup,
      inject: [DataSource, PrincipalCache, ApiKeyChangeListener],
      useFactory: (ds: DataSource, cache: PrincipalCache, changes: ApiKeyChangeListener) => new ApiKeyLookup(ds, cache, changes),
    },
    { provide: TraceQueries, inject: [READ_DB], useFactory: (ds: DataSource) => new TraceQueries(ds) },
    { provide: TraceGroupQueries, inject: [READ_DB], useFactory: (ds: DataSource) => new TraceGroupQueries(ds) },
    { provide: UsageQueries, inject: [DataSource], useFactory: (ds: DataSource) => new UsageQueries(ds) },
    { provide: SessionStore, inject: [DataSource], useFactory: (ds: DataSource) => new SessionStore(ds) },
    { provide: LoginFailuresStore, inject: [DataSource], useFactory: (ds: DataSource) => new LoginFailuresStore(ds) },
    { provide: TenancyRepository, inject: [DataSource], useFactory: (ds: DataSource) => new TenancyRepository(ds) },
    { provide: MonitorStore, inject: [DataSource], useFactory: (ds: DataSource) => new MonitorStore(ds) },
    // What reads with minSeq wait for: the watermark as the replica sees it, which arrives in the same WAL as the rows it covers.
    { provide: ProjectionCheckpoints, inject: [READ_DB], useFactory: (ds: DataSource) => new ProjectionCheckpoints(ds) },
  ],
  exports: [
    APP_CONFIG,
    LOGGER,
    DataSource,
    READ_DB,
    NatsResources,
    ChunkPublisher,
    ApiKeyLookup,
    TraceQueries,
    TraceGroupQueries,
    UsageQueries,
    SessionStore,
    LoginFailuresStore,
    TenancyRepository,
    MonitorStore,
    ProjectionCheckpoints,
  ],
})
export class InfrastructureModule implements OnApplicationShutdown {
  constructor(
    private readonly ds: DataSource,
    @Inject(READ_DB) private readonly readDs: DataSource,
    private readonly nats: NatsResources,
    private readonly apiKeyChanges: ApiKeyChangeListener,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.apiKeyChanges.close();
    await this.nats.close().catch((err) => this.logger.warn({ err: String(err) }, 'closing NATS failed'));
    if (this.readDs !== this.ds) {
      await this.readDs.destroy().catch((err) => this.logger.warn({ err: String(err) }, 'closing the read replica failed'));
    }
    await this.ds.destroy().catch((err) => this.logger.warn({ err: String(err) }, 'closing Postgres failed'));
  }
}
