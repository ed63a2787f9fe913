import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '@app/config';
import { type SpanDelta, type TelemetryFacts, stamped, versionOf } from '@app/domain';
import type { NatsResources } from '@app/eventlog';
import { MonitorStore } from '@app/persistence';
import { closeTestStreams, openTestStreams, testStreamPrefix } from '@app/eventlog/testing/test-streams';
import { seedProject, useTestDatabase } from '@app/persistence/testing/test-database';
import { markModelStatsDirty, modelStatsKeysOf, refreshDirtyOverviewStats, writeTelemetry } from '@app/projections';
import type { MonitorEvaluator } from './monitor.evaluator';
import { monitorEvaluatorOn, serveCurrentProjections, slowMonitor } from './testing/monitor-fixtures';

const MINUTE = 60_000;
/** A 5-minute boundary of event time an hour ago; the rounds below run on a clock counted from it. */
const B = Math.floor(Date.now() / (5 * MINUTE)) * 5 * MINUTE - 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The production settle (SPANLOG_MONITOR_SETTLE_MS by default, 2 minutes): the other monitor
 * tests take in the bucket still filling, so only this one shows that a batch arriving late
 * does not flap a monitor. Batches are written and recounted as the telemetry projection and
 * the stats refresher do; each round is given its clock.
 */
describe('monitor evaluation by settled event time', () => {
  const db = useTestDatabase();
  let nats: NatsResources;
  let evaluator: MonitorEvaluator;
  let projectId: string;

  beforeAll(async () => {
    await serveCurrentProjections(db.ds);
    nats = await openTestStreams('monitor-settle-test', testStreamPrefix('S'));
    const config = loadConfig({ SPANLOG_SECRET_KEY: randomBytes(32).toString('base64') });
    evaluator = monitorEvaluatorOn(db.ds, nats, config, pino({ level: 'silent' }));
    ({ projectId } = await seedProject(db.ds));
  });

  afterAll(() => closeTestStreams(nats));

  /** Ten spans starting at `startMs` and lasting `ms`, written and their buckets recounted. */
  const ingest = async (startMs: number, ms: number) => {
    const traceId = randomUUID();
    const spans: SpanDelta[] = Array.from({ length: 10 }, () => ({
      projectId,
      id: randomUUID(),
      otelSpanId: null,
      externalId: null,
      createdAt: iso(startMs),
      ...stamped(
        { traceId, type: 'LLM', model: 'gpt-4o-mini', startTime: iso(startMs), endTime: iso(startMs + ms) },
        versionOf(iso(startMs), randomUUID()),
      ),
    }));
    const facts: TelemetryFacts = { traces: [], spans, scores: [], runItems: [], deletions: [], scoreDeletions: [] };
    await db.ds.transaction(async (m) => {
      await writeTelemetry(m, facts);
      await markModelStatsDirty(m, modelStatsKeysOf(facts));
    });
    await refreshDirtyOverviewStats(db.ds, 1_000);
  };
  const FAST = 100;
  const SLOW = 5_000;

  it('judges each window once, after the batches arriving within the settle and none in the future, and a batch for a window already judged changes nothing', async () => {
    const monitor = await new MonitorStore(db.ds).create(projectId, slowMonitor);
    const round = async (clockMs: number) => {
      await evaluator.runRound(clockMs);
      return (await db.ds.query('SELECT state FROM monitors WHERE id = $1', [monitor.id]))[0].state as string;
    };
    const states: string[] = [];

    await ingest(B - 7 * MINUTE, FAST);
    await ingest(B - 3 * MINUTE, FAST);
    states.push(await round(B + 0.5 * MINUTE));
    // A minute late, within the settle: slow spans of the bucket that has just closed, and one batch stamped half an hour ahead.
    await ingest(B - MINUTE / 3, SLOW);
    await ingest(B + 30 * MINUTE, SLOW);
    states.push(await round(B + 1.5 * MINUTE));
    states.push(await round(B + 2.5 * MINUTE));
    // Fast spans of the bucket still filling: judged only once it has settled.
    await ingest(B + MINUTE, FAST);
    states.push(await round(B + 4 * MINUTE));
    states.push(await round(B + 7.5 * MINUTE));
    // Eight minutes late, slow spans of the window judged ALERT before.
    await ingest(B - 2 * MINUTE, SLOW);
    states.push(await round(B + 8.5 * MINUTE));
    states.push(await round(B + 9.5 * MINUTE));

    expect(states).toEqual(['OK', 'OK', 'ALERT', 'ALERT', 'OK', 'OK', 'OK']);
    const { entries } = await new MonitorStore(db.ds).history(monitor.id, null, 100);
    expect(entries.reverse().map((e) => ({ state: e.state, windowEnd: e.windowEnd }))).toEqual([
      { state: 'OK', windowEnd: iso(B - 5 * MINUTE) },
      { state: 'ALERT', windowEnd: iso(B) },
      { state: 'OK', windowEnd: iso(B + 5 * MINUTE) },
    ]);
  });
});
