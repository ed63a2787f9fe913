import { retentionDeleted, retentionRuns } from '@app/metrics';
import type { OrganizationRetention } from '@app/projections';
import { countRetentionRun } from './retention.scheduler';

describe(countRetentionRun.name, () => {
  const counted = async () => ({
    runs: Object.fromEntries((await retentionRuns.get()).values.map((v) => [v.labels.outcome, v.value])),
    deleted: Object.fromEntries((await retentionDeleted.get()).values.map((v) => [v.labels.kind, v.value])),
  });
  const org = (traces: number, spans: number, scores: number, removedMessages: number): OrganizationRetention => ({
    orgId: 'org',
    plan: 'free',
    cutoff: '2026-11-01T00:00:00.000Z',
    traces,
    spans,
    scores,
    removedMessages,
  });

  it("adds a finished run's deletions over its organizations, and only the run of a skipped one", async () => {
    const before = await counted();
    countRetentionRun({ ran: true, now: '2026-11-08T00:00:00.000Z', organizations: [org(2, 10, 1, 40), org(1, 3, 0, 7)] });
    countRetentionRun({ ran: false, reason: 'another retention run holds the lock' });
    const after = await counted();
    expect(after.runs).toEqual({ ...before.runs, finished: before.runs.finished + 1, skipped: before.runs.skipped + 1 });
    expect(after.deleted).toEqual({
      traces: before.deleted.traces + 3,
      spans: before.deleted.spans + 13,
      scores: before.deleted.scores + 1,
      messages: before.deleted.messages + 47,
    });
  });
});
