import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigError,
  DEFAULT_DATABASE_URL,
  DEFAULT_METRICS_PORT,
  DEFAULT_NATS_URL,
  MAX_DEFAULT_REBUILD_WORKERS,
  loadConfig as loadConfigWith,
  privateNetworkWarning,
} from './config';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'spanlog-config-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));
/** The environment's configuration, with any local key kept in the test's own folder. */
const loadConfig = (env: NodeJS.ProcessEnv) => loadConfigWith(env, join(dir, '.spanlog', 'secret.key'));
const KEY = randomBytes(32).toString('base64');
const PRODUCTION = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), SPANLOG_SECRET_KEY: KEY };

describe(loadConfig.name, () => {
  it('works with no environment at all', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      databaseUrl: DEFAULT_DATABASE_URL,
      natsServers: [DEFAULT_NATS_URL],
      streamReplicas: 1,
      port: 3000,
      host: '127.0.0.1',
      jwtAccessTtlSeconds: 900,
      jwtRefreshTtlSeconds: 2_592_000,
      streamPrefix: '',
    });
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

  it('reads from the primary unless DATABASE_READ_URL names a replica, checked as DATABASE_URL is', () => {
    expect(loadConfig({}).databaseReadUrl).toBeNull();
    expect(loadConfig({ DATABASE_READ_URL: ' ' }).databaseReadUrl).toBeNull();
    expect(loadConfig({ DATABASE_READ_URL: 'postgres://reader@replica:5432/spanlog' }).databaseReadUrl).toBe(
      'postgres://reader@replica:5432/spanlog',
    );
    expect(() => loadConfig({ DATABASE_READ_URL: 'mysql://replica/spanlog' })).toThrow(
      /DATABASE_READ_URL must use postgres: or postgresql:/,
    );
    expect(() => loadConfig({ DATABASE_READ_URL: 'replica:5432' })).toThrow(/DATABASE_READ_URL/);
  });

  it('takes NATS_URL as a comma-separated list of the servers of a cluster', () => {
    expect(loadConfig({ NATS_URL: ' nats://a:4222, nats://b:4222 ,tls://c:4222' }).natsServers).toEqual([
      'nats://a:4222',
      'nats://b:4222',
      'tls://c:4222',
    ]);
  });

  it.each([
    ['nats://a:4222,not a url', /NATS_URL is not a comma-separated list of URLs \("not a url"\)/],
    ['nats://a:4222,http://b:4222', /NATS_URL must use nats: or tls: or ws: or wss: \(got "http:" in "http:\/\/b:4222"\)/],
    ['http://b:4222', /NATS_URL must use nats: or tls: or ws: or wss: \(got "http:"\)/],
    [' , ', /NATS_URL must name at least one server/],
  ])('refuses NATS_URL=%j, naming the variable and the server', (natsUrl, message) => {
    expect(() => loadConfig({ NATS_URL: natsUrl })).toThrow(message);
  });

  it('sets the replicas of the streams from SPANLOG_STREAM_REPLICAS, from 1 to 5', () => {
    expect(loadConfig({ SPANLOG_STREAM_REPLICAS: '3' }).streamReplicas).toBe(3);
    for (const bad of ['0', '6', '2.5', 'three'])
      expect(() => loadConfig({ SPANLOG_STREAM_REPLICAS: bad })).toThrow(
        `invalid configuration: SPANLOG_STREAM_REPLICAS must be an integer from 1 to 5 (got "${bad}")`,
      );
  });

  it.each(['prod', 'Production', 'staging', 'dev'])(
    'refuses NODE_ENV=%s, naming the values it takes, rather than running development rules',
    (nodeEnv) => {
      expect(() => loadConfig({ ...PRODUCTION, NODE_ENV: nodeEnv })).toThrow(
        `invalid configuration: NODE_ENV must be one of development, test, production (got "${nodeEnv}")`,
      );
    },
  );

  it.each([undefined, '', 'development', 'test', 'production'])('takes NODE_ENV=%s', (nodeEnv) => {
    expect(loadConfig({ ...PRODUCTION, NODE_ENV: nodeEnv }).nodeEnv).toBe(nodeEnv || 'development');
  });

  it('leaves the creation limits to their defaults unless set, and takes 0 for no limit', () => {
    expect(loadConfig({})).toMatchObject({ maxFreeOrgsPerUser: null, creationsPerMinute: null });
    expect(loadConfig({ SPANLOG_MAX_FREE_ORGS_PER_USER: '0', SPANLOG_CREATIONS_PER_MINUTE: '30' })).toMatchObject({
      maxFreeOrgsPerUser: 0,
      creationsPerMinute: 30,
    });
    expect(() => loadConfig({ SPANLOG_MAX_FREE_ORGS_PER_USER: '-1' })).toThrow(/SPANLOG_MAX_FREE_ORGS_PER_USER must be an integer from 0/);
  });

  it('requires a real JWT secret in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET/);
    expect(loadConfig(PRODUCTION).jwtSecret).toBe('x'.repeat(32));
  });

  it('requires the secret key in production, naming the variable, and takes exactly 32 bytes in base64', () => {
    expect(() => loadConfig({ ...PRODUCTION, SPANLOG_SECRET_KEY: undefined })).toThrow(
      /SPANLOG_SECRET_KEY is required when NODE_ENV=production/,
    );
    expect(loadConfig(PRODUCTION).secretKey).toEqual(Buffer.from(KEY, 'base64'));
    for (const bad of ['short', randomBytes(31).toString('base64'), randomBytes(32).toString('hex'), `${KEY.slice(0, -2)}!=`]) {
      expect(() => loadConfig({ ...PRODUCTION, SPANLOG_SECRET_KEY: bad })).toThrow(/SPANLOG_SECRET_KEY must be 32 random bytes in base64/);
    }
  });

  it('outside production without the variable, makes a key once, keeps it private, and uses it from then on', () => {
    const first = loadConfig({}).secretKey;
    expect(first).toHaveLength(32);
    const file = join(dir, '.spanlog', 'secret.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadConfig({}).secretKey).toEqual(first);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.toString('base64'));
    // The variable wins over the file.
    expect(loadConfig({ SPANLOG_SECRET_KEY: KEY }).secretKey).toEqual(Buffer.from(KEY, 'base64'));
    writeFileSync(file, 'not a key');
    expect(() => loadConfig({})).toThrow(
      /SPANLOG_SECRET_KEY is not set and the local key cannot be used: .*secret\.key does not hold 32 bytes in base64/,
    );
  });

  it('lets evaluator webhooks reach private networks only outside production, unless told otherwise', () => {
    expect(loadConfig({}).evaluatorAllowPrivateNetworks).toBe(true);
    expect(loadConfig(PRODUCTION).evaluatorAllowPrivateNetworks).toBe(false);
    expect(loadConfig({ ...PRODUCTION, SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS: 'true' }).evaluatorAllowPrivateNetworks).toBe(true);
    expect(loadConfig({ SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS: '0' }).evaluatorAllowPrivateNetworks).toBe(false);
    expect(() => loadConfig({ SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS: 'maybe' })).toThrow(/SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS/);
  });

  it('offers the MCP write tool only where SPANLOG_MCP_WRITE_TOOLS turns it on', () => {
    expect(loadConfig({}).mcpWriteTools).toBe(false);
    expect(loadConfig(PRODUCTION).mcpWriteTools).toBe(false);
    expect(loadConfig({ SPANLOG_MCP_WRITE_TOOLS: 'true' }).mcpWriteTools).toBe(true);
    expect(() => loadConfig({ SPANLOG_MCP_WRITE_TOOLS: 'yes please' })).toThrow(/SPANLOG_MCP_WRITE_TOOLS/);
  });

  it('warns, naming the variable, exactly while evaluator webhooks may reach private networks', () => {
    expect(privateNetworkWarning(loadConfig({}))).toMatch(/private .*SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS=false/);
    expect(privateNetworkWarning(loadConfig({ SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS: 'false' }))).toBeNull();
    expect(privateNetworkWarning(loadConfig(PRODUCTION))).toBeNull();
  });

  it('leaves the processor priority alone unless told to lower it, within what the OS allows', () => {
    expect(loadConfig({}).processorNice).toBe(0);
    expect(loadConfig({ SPANLOG_PROCESSOR_NICE: '10' }).processorNice).toBe(10);
    expect(() => loadConfig({ SPANLOG_PROCESSOR_NICE: '20' })).toThrow(/SPANLOG_PROCESSOR_NICE must be an integer from 0 to 19/);
  });

  it('decodes a rebuild in as many worker threads as the cores, up to a few, or in its own thread when told 0', () => {
    expect(loadConfig({}).rebuildWorkers).toBe(Math.min(MAX_DEFAULT_REBUILD_WORKERS, availableParallelism()));
    expect(loadConfig({ SPANLOG_REBUILD_WORKERS: '0' }).rebuildWorkers).toBe(0);
    expect(loadConfig({ SPANLOG_REBUILD_WORKERS: '3' }).rebuildWorkers).toBe(3);
    expect(() => loadConfig({ SPANLOG_REBUILD_WORKERS: 'many' })).toThrow(
      /SPANLOG_REBUILD_WORKERS must be an integer from 0 to 256 \(got "many"\)/,
    );
    expect(() => loadConfig({ SPANLOG_REBUILD_WORKERS: '-1' })).toThrow(/SPANLOG_REBUILD_WORKERS must be an integer from 0 to 256/);
  });

  it('runs the first retention cleanup a minute after start unless told otherwise, and at most a day later', () => {
    expect(loadConfig({}).retentionFirstRunDelayMs).toBe(60_000);
    expect(loadConfig({ SPANLOG_RETENTION_FIRST_RUN_DELAY_MS: '500' }).retentionFirstRunDelayMs).toBe(500);
    expect(() => loadConfig({ SPANLOG_RETENTION_FIRST_RUN_DELAY_MS: '-1' })).toThrow(
      /SPANLOG_RETENTION_FIRST_RUN_DELAY_MS must be an integer from 0 to 86400000/,
    );
  });

  it('trusts no proxy unless told how many hops or which addresses, and refuses anything else naming TRUST_PROXY', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1, fd00::/8' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
      'fd00::/8',
    ]);
    for (const bad of ['true', '11', '10.0.0.0/33', 'fd00::/129', 'proxy.internal', '10.0.0.1/8/8', '10.0.0.1,']) {
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(/TRUST_PROXY/);
    }
  });

  it('serves the processor metrics on 9464 unless METRICS_PORT names another port or 0 turns them off', () => {
    expect(loadConfig({}).metricsPort).toBe(DEFAULT_METRICS_PORT);
    expect(loadConfig({ METRICS_PORT: '9100' }).metricsPort).toBe(9100);
    expect(loadConfig({ METRICS_PORT: '0' }).metricsPort).toBeNull();
    for (const bad of ['-1', '65536', 'metrics', '9.5'])
      expect(() => loadConfig({ METRICS_PORT: bad })).toThrow(/METRICS_PORT must be an integer from 0 to 65535/);
  });

  it('refuses stream prefixes NATS cannot name', () => {
    expect(() => loadConfig({ SPANLOG_STREAM_PREFIX: 'a.b' })).toThrow(/SPANLOG_STREAM_PREFIX/);
  });
});
