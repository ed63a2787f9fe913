import { setTimeout as sleep } from 'node:timers/promises';
import { type NatsConnection, connect } from 'nats';
import { CONSUMERS, StreamLayout } from '@app/eventlog';
import { type Tenant, bootstrap } from '../support/api';
import { Stack, runCli } from '../support/stack';
import { type KeySets, type RowCounts, countRows, spanRows } from './ledger';
import type { LoadReport } from './load';
import { PrivateServices } from './services';
import type { ScenarioResult } from './results';

/** How long a drain of several hundred thousand spans may take before the suite gives up on it. */
const SETTLE_TIMEOUT_MS = 240_000;
/** How long the usage relay and projection may lag behind the rows. */
const USAGE_TIMEOUT_MS = 60_000;

export interface Finding {
  name: string;
  tenant: Tenant;
  report: LoadReport;
  startedAt: number;
  /** Spans retention must have deleted (all of them stored before it ran). */
  expired?: { keys: Iterable<string[]>; count: number };
  backlogAtFault: number;
  faults: number;
  notes?: Record<string, unknown>;
}

/**
 * The fault suite's private nats-server and Postgres, one stack of the built apps on them,
 * and what every scenario asks of them: tenants, the projector's progress, the rows, the
 * dead-letter stream, usage and `spanlog verify`. Shared by all scenarios: starting
 * services and apps again for each would cost more than most faults take.
 */
export class FaultRig {
  private readonly layout: StreamLayout;

  private constructor(
    readonly services: PrivateServices,
    readonly stack: Stack,
  ) {
    this.layout = new StreamLayout(stack.streamPrefix);
  }

  static async start(): Promise<FaultRig> {
    const services = await PrivateServices.start();
    try {
      const stack = await Stack.start({}, { name: 'faults', adminDbUrl: services.postgres.adminUrl, natsUrl: services.nats.url });
      return new FaultRig(services, stack);
    } catch (err) {
      await services.dispose();
      throw err;
    }
  }

  async dispose(): Promise<void> {
    await this.stack.stopApps();
    await this.services.dispose();
  }

  tenant(name: string, plan: string): Promise<Tenant> {
    return bootstrap(this.stack, `${name}@faults.test`, name, name, plan);
  }

  private async withNats<T>(work: (nc: NatsConnection) => Promise<T>): Promise<T> {
    const nc = await connect({ servers: this.services.nats.url });
    try {
      return await work(nc);
    } finally {
      await nc.close();
    }
  }

  /**
   * Resolves once the projector has nothing left to deliver or to ack. This only says when
   * to start counting rows: the consumer's position is no proof that a message was applied.
   */
  async projectorIdle(timeoutMs = SETTLE_TIMEOUT_MS): Promise<void> {
    await this.withNats(async (nc) => {
      const jsm = await nc.jetstreamManager();
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const info = await jsm.consumers.info(this.layout.streamName('ingest'), this.layout.consumerName(CONSUMERS.ingestProjector));
        if (info.num_pending === 0 && info.num_ack_pending === 0) return;
        if (Date.now() > deadline) throw new Error(`the projector did not catch up within ${timeoutMs} ms: ${info.num_pending} pending, ${info.num_ack_pending} unacked`);
        await sleep(250);
      }
    });
  }

  /** Messages in the dead-letter stream: a correct run adds none. */
  deadLettered(): Promise<number> {
    return this.withNats(async (nc) => (await (await nc.jetstreamManager()).streams.info(this.layout.streamName('deadLetter'))).state.messages);
  }

  /** Acknowledged spans not in rows yet. */
  async backlog(projectId: string, acknowledged: number): Promise<number> {
    return acknowledged - (await spanRows(this.stack.db, projectId));
  }

  /** Resolves once rows of the project grow: the processor is applying the backlog. */
  async draining(projectId: string, timeoutMs = 60_000): Promise<void> {
    const before = await spanRows(this.stack.db, projectId);
    const deadline = Date.now() + timeoutMs;
    while ((await spanRows(this.stack.db, projectId)) === before) {
      if (Date.now() > deadline) throw new Error(`no span of project ${projectId} was applied within ${timeoutMs} ms`);
      await sleep(50);
    }
  }

  /** Waits until every key of `keys` is stored once (data a scenario needs in place before its fault). */
  async visible(projectId: string, keys: KeySets, timeoutMs = 60_000): Promise<RowCounts> {
    await this.projectorIdle(timeoutMs);
    const counts = await countRows(this.stack.db, projectId, keys);
    if (counts.lost || counts.duplicates) throw new Error(`set-up data not stored exactly once: ${JSON.stringify(counts)}`);
    return counts;
  }

  /** The spans the organization's usage counters hold, once they reach `expected` or stop short of it. */
  async usageSpans(orgId: string, expected: number): Promise<number> {
    const deadline = Date.now() + USAGE_TIMEOUT_MS;
    for (;;) {
      const { rows } = await this.stack.db.query<{ spans: number }>('SELECT coalesce(sum(spans), 0)::int AS spans FROM usage_counters WHERE org_id = $1', [orgId]);
      if (rows[0].spans >= expected || Date.now() > deadline) return rows[0].spans;
      await sleep(250);
    }
  }

  /** `spanlog verify --project ID --json` as an operator runs it: clean only if it says so and exits 0. */
  async verify(projectId: string): Promise<{ clean: boolean; output: string }> {
    const res = await runCli(['verify', '--project', projectId, '--json'], this.stack.env);
    let clean = false;
    try {
      clean = res.code === 0 && (JSON.parse(res.stdout) as { clean?: unknown }).clean === true;
    } catch {
      // Not one JSON document: not clean, and the output says why.
    }
    return { clean, output: `exit ${res.code}: ${res.stdout.trim() || res.stderr.trim()}`.slice(0, 2_000) };
  }

  /** Everything a scenario is judged by, counted once the projector has caught up. */
  async conclude(f: Finding, deadLetteredBefore: number): Promise<ScenarioResult> {
    await this.projectorIdle();
    const drainedAt = performance.now();
    const counts = await countRows(this.stack.db, f.tenant.projectId, { kept: f.report.keys(), expired: f.expired?.keys });
    const countedAt = performance.now();
    const expired = f.expired?.count ?? 0;
    // Usage counts a span when it is first stored; retention deletes rows, not what was counted.
    const usageExpected = counts.rows + expired;
    const [deadLettered, usageCounted, verified] = [await this.deadLettered(), await this.usageSpans(f.tenant.orgId, usageExpected), await this.verify(f.tenant.projectId)];
    return {
      scenario: f.name,
      sent: f.report.sent,
      acknowledged: counts.acknowledged,
      stored: counts.stored,
      lost: counts.lost,
      duplicates: counts.duplicates,
      storedUnacknowledged: counts.storedUnacknowledged,
      answered503: f.report.statuses['503'] ?? 0,
      deadLettered: deadLettered - deadLetteredBefore,
      usageCounted,
      usageExpected,
      expired,
      expiredRemaining: counts.expiredRemaining,
      verifyClean: verified.clean,
      verifyOutput: verified.output,
      backlogAtFault: f.backlogAtFault,
      faults: f.faults,
      seconds: (performance.now() - f.startedAt) / 1_000,
      notes: { ...f.notes, drainedS: (drainedAt - f.startedAt) / 1_000, countS: (countedAt - drainedAt) / 1_000, checksS: (performance.now() - countedAt) / 1_000 },
      statuses: f.report.statuses,
    };
  }
}
