import { setTimeout as sleep } from 'node:timers/promises';
import { type NatsConnection, connect } from 'nats';
import { CONSUMERS, StreamLayout } from '@app/eventlog';
import { type Tenant, bootstrap } from '../support/api';
import { parseNatsServers } from '@app/config';
import { Stack, runCli } from '../support/stack';
import { type KeySets, type RowCounts, countRows, spanRows } from './ledger';
import { type LoadReport, mergeReports } from './load';
import { PrivateServices } from './services';
import type { ScenarioResult } from './results';

/** How long a drain of several hundred thousand spans may take before the suite gives up on it. */
const SETTLE_TIMEOUT_MS = 180_000;
/** How long the usage relay and projection may lag behind the rows. */
const USAGE_TIMEOUT_MS = 60_000;
/** A verify still running after this is stopped and reported with what it printed, rather than left to the test's timeout. */
const VERIFY_TIMEOUT_MS = 120_000;

export interface Verified {
  clean: boolean;
  output: string;
}

/** What one project of a scenario was sent, and what retention had to delete of it. */
export interface ProjectLoad {
  projectId: string;
  report: LoadReport;
  /** Spans retention must have deleted (all of them stored before it ran). */
  expired?: { keys: Iterable<string[]>; count: number };
  /** `spanlog verify` of the project and its rows counted, when the scenario started them itself (once nothing more could change there). */
  verified?: Promise<Verified>;
  counted?: Promise<RowCounts>;
}

export interface Finding {
  name: string;
  orgId: string;
  projects: ProjectLoad[];
  startedAt: number;
  backlogAtFault: number;
  faults: number;
  notes?: Record<string, unknown>;
}

/**
 * What every scenario asks of a running stack: tenants, the projector's progress, the rows,
 * the dead-letter stream, usage and `spanlog verify`, judged by rows. The fault suite's rig
 * and the cluster suite (test/cluster) both judge with it.
 */
export class StackJudge {
  private readonly layout: StreamLayout;
  private readonly suiteStartedAt = performance.now();

  constructor(
    readonly stack: Stack,
    /** Starts each progress line: which suite speaks. */
    private readonly suite: string,
  ) {
    this.layout = new StreamLayout(stack.streamPrefix);
  }

  /** One line on stderr per step: a suite of a quarter of an hour says where it is, and where it stopped. */
  progress(scenario: string, step: string): void {
    process.stderr.write(`${this.suite} ${((performance.now() - this.suiteStartedAt) / 1_000).toFixed(1)} s ${scenario}: ${step}\n`);
  }

  /** A user and organization named `name`, and a project in it (`project`, else also `name`). */
  tenant(name: string, plan: string, project = name): Promise<Tenant> {
    return bootstrap(this.stack, `${name}@${this.suite}.test`, name, project, plan);
  }

  private async withNats<T>(work: (nc: NatsConnection) => Promise<T>): Promise<T> {
    const nc = await connect({ servers: parseNatsServers(this.stack.env.NATS_URL ?? '').servers });
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
        if (Date.now() > deadline) {
          const output = this.stack.recentOutput('processor').slice(-4_000);
          throw new Error(
            `the projector did not catch up within ${timeoutMs} ms: ${info.num_pending} pending, ${info.num_ack_pending} unacked; the processor's last output:\n${output}`,
          );
        }
        await sleep(250);
      }
    });
  }

  /** Messages in the dead-letter stream: a correct run adds none. */
  deadLettered(): Promise<number> {
    return this.withNats(
      async (nc) => (await (await nc.jetstreamManager()).streams.info(this.layout.streamName('deadLetter'))).state.messages,
    );
  }

  /** Acknowledged spans not in rows yet, over one or several projects. */
  async backlog(projectIds: string | string[], acknowledged: number): Promise<number> {
    return acknowledged - (await spanRows(this.stack.db, projectIds));
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
      const { rows } = await this.stack.db.query<{ spans: number }>(
        'SELECT coalesce(sum(spans), 0)::int AS spans FROM usage_counters WHERE org_id = $1',
        [orgId],
      );
      if (rows[0].spans >= expected || Date.now() > deadline) return rows[0].spans;
      await sleep(250);
    }
  }

  /** `spanlog verify --project ID --json` as an operator runs it: clean only if it says so and exits 0. */
  async verify(projectId: string): Promise<Verified> {
    const res = await runCli(['verify', '--project', projectId, '--json'], this.stack.env, { timeoutMs: VERIFY_TIMEOUT_MS });
    if (res.code === null)
      return { clean: false, output: `still running after ${VERIFY_TIMEOUT_MS / 1_000} s: ${res.stderr.trim()}`.slice(0, 2_000) };
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
    this.progress(f.name, 'waiting for the projector to catch up');
    await this.projectorIdle();
    this.progress(f.name, 'counting rows, usage and spanlog verify');
    const drainedAt = performance.now();
    const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
      const from = performance.now();
      return [await work(), (performance.now() - from) / 1_000];
    };
    // verify reads the project's messages again in a process of its own: it runs beside the counting.
    const verifying = timed(() => Promise.all(f.projects.map((p) => p.verified ?? this.verify(p.projectId))));
    const [counts, countS] = await timed(async () => {
      const sum: RowCounts = { acknowledged: 0, stored: 0, lost: 0, duplicates: 0, storedUnacknowledged: 0, expiredRemaining: 0, rows: 0 };
      for (const p of f.projects) {
        const c = await (p.counted ?? countRows(this.stack.db, p.projectId, { kept: p.report.keys(), expired: p.expired?.keys }));
        for (const k of Object.keys(sum) as (keyof RowCounts)[]) sum[k] += c[k];
      }
      return sum;
    });
    const expired = f.projects.reduce((n, p) => n + (p.expired?.count ?? 0), 0);
    // Usage counts a span when it is first stored; retention deletes rows, not what was counted.
    const usageExpected = counts.rows + expired;
    const [usageCounted, usageS] = await timed(() => this.usageSpans(f.orgId, usageExpected));
    const [verified, verifyS] = await verifying;
    const deadLettered = await this.deadLettered();
    const report = f.projects.map((p) => p.report).reduce(mergeReports);
    return {
      scenario: f.name,
      sent: report.sent,
      acknowledged: counts.acknowledged,
      stored: counts.stored,
      lost: counts.lost,
      duplicates: counts.duplicates,
      storedUnacknowledged: counts.storedUnacknowledged,
      answered503: report.statuses['503'] ?? 0,
      deadLettered: deadLettered - deadLetteredBefore,
      usageCounted,
      usageExpected,
      expired,
      expiredRemaining: counts.expiredRemaining,
      verifyClean: verified.every((v) => v.clean),
      verifyOutput: verified
        .filter((v) => !v.clean)
        .map((v) => v.output)
        .join('\n'),
      backlogAtFault: f.backlogAtFault,
      faults: f.faults,
      seconds: (performance.now() - f.startedAt) / 1_000,
      notes: { ...f.notes, drainedS: (drainedAt - f.startedAt) / 1_000, countS, usageS, verifyS },
      statuses: report.statuses,
    };
  }
}

/**
 * The fault suite's private nats-server and Postgres, one stack of the built apps on them, and
 * the judge of every scenario. Shared by all scenarios: starting services and apps again for
 * each would cost more than most faults take.
 */
export class FaultRig extends StackJudge {
  private constructor(
    readonly services: PrivateServices,
    stack: Stack,
  ) {
    super(stack, 'faults');
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
}
