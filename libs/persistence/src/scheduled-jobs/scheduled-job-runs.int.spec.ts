import 'reflect-metadata';
import { Client } from 'pg';
import { ScheduledJobRuns } from './scheduled-job-runs';
import { useTestDatabase } from '../testing/test-database';

describe(ScheduledJobRuns.name, () => {
  const db = useTestDatabase();
  const runs = () => new ScheduledJobRuns(db.ds);

  it('runs a period once however many processors look at once, and again once the next period is due', async () => {
    let ran = 0;
    const round = async () => {
      ran++;
      await new Promise((r) => setTimeout(r, 50));
    };
    const outcomes = await Promise.all(['a', 'b', 'c', 'd'].map((holder) => runs().runIfDue('job-1', holder, 60_000, round)));
    expect(outcomes.sort()).toEqual(['ran', 'skipped', 'skipped', 'skipped']);
    expect(await runs().runIfDue('job-1', 'b', 60_000, round)).toBe('skipped');
    expect(ran).toBe(1);
    await db.ds.query(`UPDATE scheduled_job_runs SET started_at = now() - interval '61 seconds' WHERE job = 'job-1'`);
    expect(await runs().runIfDue('job-1', 'b', 60_000, round)).toBe('ran');
    expect(ran).toBe(2);
    expect(await db.ds.query(`SELECT holder, finished_at IS NOT NULL AS finished FROM scheduled_job_runs WHERE job = 'job-1'`)).toEqual([
      { holder: 'b', finished: true },
    ]);
  });

  it('runs again at once a run whose processor died in it, and leaves a run in progress to its processor', async () => {
    // A processor that started a run and holds its lock, as runIfDue does, on a connection of its own.
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    await holder.query(`SELECT pg_advisory_lock(hashtext('spanlog.job.job-2'))`);
    await holder.query(`INSERT INTO scheduled_job_runs (job, holder, started_at) VALUES ('job-2', 'dead', now())`);
    let ran = 0;
    expect(await runs().runIfDue('job-2', 'b', 60_000, async () => void ran++)).toBe('skipped');
    // Killed: Postgres ends its session, and its lock with it.
    await holder.end();
    expect(await runs().runIfDue('job-2', 'b', 60_000, async () => void ran++)).toBe('ran');
    expect(ran).toBe(1);
  });

  it('leaves a run whose round failed unfinished, for the next look to run again', async () => {
    await expect(runs().runIfDue('job-3', 'a', 60_000, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await runs().runIfDue('job-3', 'b', 60_000, async () => undefined)).toBe('ran');
  });
});
