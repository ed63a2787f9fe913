import { randomBytes } from 'node:crypto';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface AppConfig {
  databaseUrl: string;
  natsUrl: string;
  port: number;
  host: string;
  jwtSecret: string;
  jwtAccessTtlSeconds: number;
  jwtRefreshTtlSeconds: number;
  nodeEnv: string;
  logLevel: LogLevel;
  /** Prefix of stream, consumer and bucket names, so test runs never share streams. */
  streamPrefix: string;
  /**
   * Whether evaluator webhooks may be called at private, loopback and link-local addresses.
   * Off in production (a webhook URL must not reach the service's own network), on elsewhere
   * so that a local endpoint can be tried; `SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS` overrides.
   */
  evaluatorAllowPrivateNetworks: boolean;
  /**
   * The processor's niceness (0–19). Where the API, Postgres and the processor share cores, a
   * higher value lets accepting requests (what clients wait for; durable once acknowledged)
   * come first and projection lag: more accepted, later visible. Under sustained load the
   * backlog then grows, so the default is 0; alone on a host it changes nothing.
   */
  processorNice: number;
  /**
   * How long after its start the processor runs its first retention cleanup (then daily). The
   * wait lets a restarting fleet serve before it cleans; tests shorten it to catch a run in
   * progress.
   */
  retentionFirstRunDelayMs: number;
  /** How often the processor checks newly applied requests against the rows they write (`spanlog verify`, incrementally). */
  verifyIntervalMs: number;
}

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/spanlog';
export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and checks the environment once at start; every problem is reported together. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const problems: string[] = [];
  const str = (name: string, fallback: string): string => {
    const value = env[name]?.trim();
    return value ? value : fallback;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const url = (name: string, fallback: string, protocols: string[]): string => {
    const value = str(name, fallback);
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) problems.push(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
    } catch {
      problems.push(`${name} is not a URL`);
    }
    return value;
  };

  const nodeEnv = str('NODE_ENV', 'development');
  const logLevel = str('LOG_LEVEL', nodeEnv === 'test' ? 'warn' : 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  let jwtSecret = env.JWT_SECRET?.trim() ?? '';
  if (!jwtSecret) {
    if (nodeEnv === 'production') problems.push('JWT_SECRET is required when NODE_ENV=production');
    // Outside production a per-process secret is safe: sessions just do not survive a restart.
    jwtSecret = randomBytes(32).toString('hex');
  } else if (nodeEnv === 'production' && jwtSecret.length < 32) {
    problems.push('JWT_SECRET must be at least 32 characters in production');
  }

  const bool = (name: string, fallback: boolean): boolean => {
    const raw = env[name]?.trim().toLowerCase();
    if (!raw) return fallback;
    if (['1', 'true', 'yes'].includes(raw)) return true;
    if (['0', 'false', 'no'].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };

  const streamPrefix = str('SPANLOG_STREAM_PREFIX', '');
  if (!/^[A-Za-z0-9_-]*$/.test(streamPrefix)) problems.push('SPANLOG_STREAM_PREFIX may only hold letters, digits, _ and -');

  const config: AppConfig = {
    databaseUrl: url('DATABASE_URL', DEFAULT_DATABASE_URL, ['postgres:', 'postgresql:']),
    natsUrl: url('NATS_URL', DEFAULT_NATS_URL, ['nats:', 'tls:', 'ws:', 'wss:']),
    port: int('PORT', 3000, 0, 65535),
    host: str('HOST', '127.0.0.1'),
    jwtSecret,
    jwtAccessTtlSeconds: int('JWT_ACCESS_TTL', 900, 30, 86_400),
    jwtRefreshTtlSeconds: int('JWT_REFRESH_TTL', 2_592_000, 60, 31_536_000),
    nodeEnv,
    logLevel,
    streamPrefix,
    evaluatorAllowPrivateNetworks: bool('SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS', nodeEnv !== 'production'),
    processorNice: int('SPANLOG_PROCESSOR_NICE', 0, 0, 19),
    retentionFirstRunDelayMs: int('SPANLOG_RETENTION_FIRST_RUN_DELAY_MS', 60_000, 0, 86_400_000),
    verifyIntervalMs: int('SPANLOG_VERIFY_INTERVAL_MS', 600_000, 1_000, 86_400_000),
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}
