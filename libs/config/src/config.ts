import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { LOCAL_SECRET_KEY_FILE, localSecretKey, parseSecretKey } from './secret-key';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * The NODE_ENV values Spanlog knows; unset is development. Anything else is refused rather
 * than run as development: `prod` or `Production` meant production, whose rules (a real JWT
 * secret, HTTPS and public evaluator URLs) development would silently drop.
 */
export const NODE_ENVS = ['development', 'test', 'production'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The default rebuild workers at most. On 2 cores, 2 threads rebuilt fastest (0, 1 and 3 were
 * slower: the writing thread and Postgres wait on each other, so a thread per core keeps both
 * cores busy); a thread prepares a batch in about 1.5 times the one writing connection's time
 * to write it, so beyond a few the write is the wall and each more thread only holds batches.
 */
export const MAX_DEFAULT_REBUILD_WORKERS = 4;

export interface AppConfig {
  databaseUrl: string;
  /**
   * A streaming replica of DATABASE_URL's database that the API sends its read-model queries to
   * (docs/ARCHITECTURE.md "Read replicas"); null when unset, and every query goes to the primary.
   */
  databaseReadUrl: string | null;
  /**
   * The NATS servers to connect to (`NATS_URL`, comma-separated): one, or several members of a
   * JetStream cluster, so that the client reconnects to another when one goes away.
   */
  natsServers: string[];
  /**
   * Replicas of every stream, object store and KV bucket Spanlog creates
   * (`SPANLOG_STREAM_REPLICAS`): 1 on a single server, 3 on a JetStream cluster. An existing
   * stream with another count is brought to this one at start.
   */
  streamReplicas: number;
  port: number;
  host: string;
  /** Where the processor serves `/metrics` (on HOST); null when `METRICS_PORT=0` turns it off. */
  metricsPort: number | null;
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
  /** Whether the MCP server offers its write tool `create_score` (docs/mcp.md); off unless `SPANLOG_MCP_WRITE_TOOLS` turns it on. */
  mcpWriteTools: boolean;
  /**
   * The processor's niceness (0–19). Where the API, Postgres and the processor share cores, a
   * higher value lets accepting requests (what clients wait for; durable once acknowledged)
   * come first and projection lag: more accepted, later visible. Under sustained load the
   * backlog then grows, so the default is 0; alone on a host it changes nothing.
   */
  processorNice: number;
  /**
   * Batches the telemetry projection applies at once, each in its own transaction and
   * connection (`SPANLOG_APPLY_LANES`, 1–8): by default as many as the machine has cores, up
   * to 4, so Postgres can work on more than one core while the processor prepares the next.
   */
  applyLanes: number;
  /**
   * Worker threads a telemetry rebuild (`spanlog rebuild`, the processor's upgrade) decodes and
   * prepares its batches in, while its own thread writes them: by default as many as the cores,
   * up to `MAX_DEFAULT_REBUILD_WORKERS`; 0 decodes in its own thread.
   */
  rebuildWorkers: number;
  /**
   * How long after its start the processor runs its first retention cleanup (then daily). The
   * wait lets a restarting fleet serve before it cleans; tests shorten it to catch a run in
   * progress.
   */
  retentionFirstRunDelayMs: number;
  /** How often the processor checks newly applied requests against the rows they write (`spanlog verify`, incrementally). */
  verifyIntervalMs: number;
  /** Monitors (docs/evaluation.md "Monitors"): how often one processor evaluates them all. */
  monitorIntervalMs: number;
  /**
   * How long event time is left to settle: a round evaluates windows ending at the last
   * 5-minute boundary at least this long ago, so a batch arriving a little late is counted
   * before its window is judged rather than flapping it. A negative value (down to −300000)
   * takes the bucket still filling in too: for tests and demos, not production.
   */
  monitorSettleMs: number;
  /** A round is skipped while the telemetry projection has more than this many stored messages left to apply. */
  monitorMaxLagMessages: number;
  /**
   * Which peers may tell the API the client's address (X-Forwarded-For): none (false), the
   * nearest `n` hops, or the proxies at these addresses and networks. Trusting every peer
   * would let each client pick its own address, and with it its rate-limit bucket.
   */
  trustProxy: TrustProxy;
  /**
   * Free organizations one user may own (`SPANLOG_MAX_FREE_ORGS_PER_USER`); 0 is no limit, for
   * a self-hosted install; null when unset, for DEFAULT_MAX_FREE_ORGS_PER_USER (libs/domain limits).
   */
  maxFreeOrgsPerUser: number | null;
  /**
   * Organizations, projects and API keys one user may create together per minute
   * (`SPANLOG_CREATIONS_PER_MINUTE`); 0 is no limit; null when unset, for CREATION_RATE (libs/domain limits).
   */
  creationsPerMinute: number | null;
  /**
   * The key that encrypts secrets at rest (evaluator headers and signing secrets):
   * `SPANLOG_SECRET_KEY`, required in production; elsewhere made once and kept in
   * `.spanlog/secret.key`. Losing it makes those secrets unreadable.
   */
  secretKey: Buffer;
}

export type TrustProxy = false | number | string[];

const MAX_PROXY_HOPS = 10;

/** `TRUST_PROXY`: unset (off), a hop count, or a comma-separated list of IP addresses and CIDR networks. */
export function parseTrustProxy(raw: string | undefined): { value: TrustProxy; problem?: string } {
  const text = raw?.trim() ?? '';
  if (!text || text === '0' || text.toLowerCase() === 'false') return { value: false };
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    return hops <= MAX_PROXY_HOPS
      ? { value: hops }
      : { value: false, problem: `TRUST_PROXY hop count must be from 1 to ${MAX_PROXY_HOPS} (got "${text}")` };
  }
  if (text.toLowerCase() === 'true') {
    return {
      value: false,
      problem:
        'TRUST_PROXY=true would let every client choose its own address: give the number of proxies in front of the API, or their addresses',
    };
  }
  const entries = text.split(',').map((e) => e.trim());
  const bad = entries.filter((entry) => !isAddressOrNetwork(entry));
  if (bad.length)
    return {
      value: false,
      problem: `TRUST_PROXY must be a hop count or a comma-separated list of IP addresses and CIDR networks (not "${bad.join('", "')}")`,
    };
  return { value: entries };
}

function isAddressOrNetwork(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (!version || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

const NATS_PROTOCOLS = ['nats:', 'tls:', 'ws:', 'wss:'];
/** JetStream keeps at most 5 replicas of a stream; even counts tolerate no more failures than the odd count below. */
export const MAX_STREAM_REPLICAS = 5;

/**
 * `NATS_URL`: one server URL or a comma-separated list of them (members of one cluster), each
 * checked as one URL is.
 */
export function parseNatsServers(raw: string): { servers: string[]; problems: string[] } {
  const servers = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const problems: string[] = [];
  if (!servers.length) problems.push('NATS_URL must name at least one server');
  for (const server of servers) {
    const where = servers.length > 1 ? ` in "${server}"` : '';
    try {
      const { protocol } = new URL(server);
      if (!NATS_PROTOCOLS.includes(protocol)) problems.push(`NATS_URL must use ${NATS_PROTOCOLS.join(' or ')} (got "${protocol}"${where})`);
    } catch {
      problems.push(servers.length > 1 ? `NATS_URL is not a comma-separated list of URLs ("${server}")` : 'NATS_URL is not a URL');
    }
  }
  return { servers, problems };
}

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/spanlog';
const POSTGRES_PROTOCOLS = ['postgres:', 'postgresql:'];
export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
/** The port OpenTelemetry's Prometheus exporters listen on by default, so scrape settings made for them fit. */
export const DEFAULT_METRICS_PORT = 9464;

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads and checks the environment once at start; every problem is reported together.
 * Outside production without `SPANLOG_SECRET_KEY`, the key comes from `localKeyFile` (made there once).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, localKeyFile = LOCAL_SECRET_KEY_FILE): AppConfig {
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
  /** A limit whose default lives with the rule (libs/domain), not here: null when unset. */
  const optionalInt = (name: string, min: number, max: number): number | null => (env[name]?.trim() ? int(name, min, min, max) : null);
  const checkUrl = (name: string, value: string, protocols: string[]): void => {
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) problems.push(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
    } catch {
      problems.push(`${name} is not a URL`);
    }
  };
  const url = (name: string, fallback: string, protocols: string[]): string => {
    const value = str(name, fallback);
    checkUrl(name, value, protocols);
    return value;
  };
  const optionalUrl = (name: string, protocols: string[]): string | null => {
    const value = env[name]?.trim();
    if (!value) return null;
    checkUrl(name, value, protocols);
    return value;
  };

  const nodeEnv = str('NODE_ENV', 'development');
  if (!(NODE_ENVS as readonly string[]).includes(nodeEnv))
    problems.push(`NODE_ENV must be one of ${NODE_ENVS.join(', ')} (got ${JSON.stringify(nodeEnv.slice(0, 64))})`);
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

  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  if (trustProxy.problem) problems.push(trustProxy.problem);
  const secretKey = (): Buffer => {
    const raw = env.SPANLOG_SECRET_KEY?.trim();
    const howTo = '32 random bytes in base64, as `openssl rand -base64 32` prints them';
    if (raw) {
      const key = parseSecretKey(raw);
      if (!key) problems.push(`SPANLOG_SECRET_KEY must be ${howTo}`);
      return key ?? Buffer.alloc(0);
    }
    if (nodeEnv === 'production') {
      problems.push(
        `SPANLOG_SECRET_KEY is required when NODE_ENV=production (${howTo}); it encrypts evaluator headers and signing secrets`,
      );
      return Buffer.alloc(0);
    }
    try {
      return localSecretKey(localKeyFile);
    } catch (err) {
      problems.push(`SPANLOG_SECRET_KEY is not set and the local key cannot be used: ${(err as Error).message}`);
      return Buffer.alloc(0);
    }
  };

  const nats = parseNatsServers(str('NATS_URL', DEFAULT_NATS_URL));
  problems.push(...nats.problems);

  const streamPrefix = str('SPANLOG_STREAM_PREFIX', '');
  if (!/^[A-Za-z0-9_-]*$/.test(streamPrefix)) problems.push('SPANLOG_STREAM_PREFIX may only hold letters, digits, _ and -');

  const config: AppConfig = {
    databaseUrl: url('DATABASE_URL', DEFAULT_DATABASE_URL, POSTGRES_PROTOCOLS),
    databaseReadUrl: optionalUrl('DATABASE_READ_URL', POSTGRES_PROTOCOLS),
    natsServers: nats.servers,
    streamReplicas: int('SPANLOG_STREAM_REPLICAS', 1, 1, MAX_STREAM_REPLICAS),
    port: int('PORT', 3000, 0, 65535),
    host: str('HOST', '127.0.0.1'),
    metricsPort: int('METRICS_PORT', DEFAULT_METRICS_PORT, 0, 65535) || null,
    jwtSecret,
    jwtAccessTtlSeconds: int('JWT_ACCESS_TTL', 900, 30, 86_400),
    jwtRefreshTtlSeconds: int('JWT_REFRESH_TTL', 2_592_000, 60, 31_536_000),
    nodeEnv,
    logLevel,
    streamPrefix,
    evaluatorAllowPrivateNetworks: bool('SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS', nodeEnv !== 'production'),
    mcpWriteTools: bool('SPANLOG_MCP_WRITE_TOOLS', false),
    processorNice: int('SPANLOG_PROCESSOR_NICE', 0, 0, 19),
    applyLanes: int('SPANLOG_APPLY_LANES', Math.min(4, availableParallelism()), 1, 8),
    rebuildWorkers: int('SPANLOG_REBUILD_WORKERS', Math.min(MAX_DEFAULT_REBUILD_WORKERS, availableParallelism()), 0, 256),
    retentionFirstRunDelayMs: int('SPANLOG_RETENTION_FIRST_RUN_DELAY_MS', 60_000, 0, 86_400_000),
    verifyIntervalMs: int('SPANLOG_VERIFY_INTERVAL_MS', 600_000, 1_000, 86_400_000),
    monitorIntervalMs: int('SPANLOG_MONITOR_INTERVAL_MS', 60_000, 1_000, 3_600_000),
    monitorSettleMs: int('SPANLOG_MONITOR_SETTLE_MS', 120_000, -300_000, 3_600_000),
    monitorMaxLagMessages: int('SPANLOG_MONITOR_MAX_LAG', 10_000, 0, 100_000_000),
    trustProxy: trustProxy.value,
    maxFreeOrgsPerUser: optionalInt('SPANLOG_MAX_FREE_ORGS_PER_USER', 0, 1_000_000),
    creationsPerMinute: optionalInt('SPANLOG_CREATIONS_PER_MINUTE', 0, 1_000_000),
    secretKey: secretKey(),
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/**
 * The warning `npm start` and the processor give while evaluator webhooks may reach private
 * networks (the default outside production): anyone who can create an evaluator can then make
 * this host call its own services, its LAN or a cloud metadata endpoint. Null when they may not.
 */
export function privateNetworkWarning(config: Pick<AppConfig, 'evaluatorAllowPrivateNetworks'>): string | null {
  if (!config.evaluatorAllowPrivateNetworks) return null;
  return (
    'evaluator webhooks may call loopback, private and link-local addresses (this host, its network, cloud metadata); ' +
    'set SPANLOG_EVALUATOR_ALLOW_PRIVATE_NETWORKS=false (or NODE_ENV=production) wherever people you do not trust can create evaluators'
  );
}
