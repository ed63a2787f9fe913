import { ConfigError, DEFAULT_DATABASE_URL, DEFAULT_NATS_URL, loadConfig } from './config';

describe(loadConfig.name, () => {
  it('works with no environment at all', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ databaseUrl: DEFAULT_DATABASE_URL, natsUrl: DEFAULT_NATS_URL, port: 3000, host: '127.0.0.1', jwtAccessTtlSeconds: 900, jwtRefreshTtlSeconds: 2_592_000, streamPrefix: '' });
    expect(c.jwtSecret).toHaveLength(64);
  });

  it('reports every problem at once, naming the variable', () => {
    expect(() => loadConfig({ PORT: 'abc', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: 'abc', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' });
    } catch (err) {
      expect((err as Error).message).toMatch(/PORT/);
      expect((err as Error).message).toMatch(/DATABASE_URL/);
      expect((err as Error).message).toMatch(/LOG_LEVEL/);
    }
  });

  it('requires a real JWT secret in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET/);
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }).jwtSecret).toBe('x'.repeat(32));
  });

  it('lets evaluator webhooks reach private networks only outside production, unless told otherwise', () => {
    expect(loadConfig({}).evaluatorAllowPrivateNetworks).toBe(true);
    const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) };
    expect(loadConfig(production).evaluatorAllowPrivateNetworks).toBe(false);
    expect(loadConfig({ ...production, SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS: 'true' }).evaluatorAllowPrivateNetworks).toBe(true);
    expect(loadConfig({ SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS: '0' }).evaluatorAllowPrivateNetworks).toBe(false);
    expect(() => loadConfig({ SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS: 'maybe' })).toThrow(/SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS/);
  });

  it('leaves the processor priority alone unless told to lower it, within what the OS allows', () => {
    expect(loadConfig({}).processorNice).toBe(0);
    expect(loadConfig({ SPANLOG_PROCESSOR_NICE: '10' }).processorNice).toBe(10);
    expect(() => loadConfig({ SPANLOG_PROCESSOR_NICE: '20' })).toThrow(/SPANLOG_PROCESSOR_NICE must be an integer from 0 to 19/);
  });

  it('runs the first retention cleanup a minute after start unless told otherwise, and at most a day later', () => {
    expect(loadConfig({}).retentionFirstRunDelayMs).toBe(60_000);
    expect(loadConfig({ SPANLOG_RETENTION_FIRST_RUN_DELAY_MS: '500' }).retentionFirstRunDelayMs).toBe(500);
    expect(() => loadConfig({ SPANLOG_RETENTION_FIRST_RUN_DELAY_MS: '-1' })).toThrow(/SPANLOG_RETENTION_FIRST_RUN_DELAY_MS must be an integer from 0 to 86400000/);
  });

  it('refuses stream prefixes NATS cannot name', () => {
    expect(() => loadConfig({ SPANLOG_STREAM_PREFIX: 'a.b' })).toThrow(/SPANLOG_STREAM_PREFIX/);
  });
});
