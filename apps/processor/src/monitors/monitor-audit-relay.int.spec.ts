import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { AuditEvent } from '@app/domain';
import { MonitorStore } from '@app/persistence';
import { seedProject, useTestDatabase } from '@app/persistence/testing/test-database';
import { relayStateChangeAudits } from './monitor-audit-relay';
import { noTrafficMonitor, slowMonitor } from './testing/monitor-fixtures';

describe('monitor state changes audited from their outbox', () => {
  const db = useTestDatabase();
  let monitors: MonitorStore;

  beforeAll(() => {
    monitors = new MonitorStore(db.ds);
  });

  it('audits each change once, keeps a change whose publish failed for the next try, and gives it the same event id', async () => {
    const { orgId, projectId } = await seedProject(db.ds);
    const monitor = await monitors.create(projectId, slowMonitor);
    const window = { windowStart: new Date('2026-11-24T10:00:00Z'), windowEnd: new Date('2026-11-24T10:05:00Z') };
    expect(await monitors.recordEvaluation(monitor, { state: 'ALERT', value: 2500, ...window })).toBe(true);

    const published: AuditEvent[] = [];
    const publish = async (events: AuditEvent[]) => void published.push(...events);
    const failedTry: AuditEvent[] = [];
    await expect(
      relayStateChangeAudits(db.ds, 100, async (events) => {
        failedTry.push(...events);
        throw new Error('timeout');
      }),
    ).rejects.toThrow('timeout');
    expect(await relayStateChangeAudits(db.ds, 100, publish)).toBe(1);
    expect(await relayStateChangeAudits(db.ds, 100, publish)).toBe(0);

    expect(published).toEqual([
      {
        id: failedTry[0].id,
        orgId,
        actorUserId: null,
        action: 'monitor.state_changed',
        target: monitor.id,
        details: {
          projectId,
          name: 'slow',
          from: null,
          to: 'ALERT',
          value: 2500,
          threshold: 1000,
          comparison: '>',
          windowStart: '2026-11-24T10:00:00.000Z',
          windowEnd: '2026-11-24T10:05:00.000Z',
        },
        ip: null,
        at: expect.any(String),
      },
    ]);
  });

  it('audits a change once even when its monitor, or its project, was deleted before the change could be published', async () => {
    const [org] = await db.ds.query(`INSERT INTO organizations (name) VALUES ($1) RETURNING id`, [`org ${randomUUID()}`]);
    const projects = await Promise.all(
      ['kept', 'deleted'].map(
        async (name) =>
          (await db.ds.query(`INSERT INTO projects (org_id, name) VALUES ($1, $2) RETURNING id`, [org.id, name]))[0].id as string,
      ),
    );
    const deletedMonitor = await monitors.create(projects[0], noTrafficMonitor('deleted monitor'));
    const inDeletedProject = await monitors.create(projects[1], noTrafficMonitor('in a deleted project'));
    const window = { windowStart: new Date('2026-11-24T10:00:00Z'), windowEnd: new Date('2026-11-24T10:05:00Z') };
    for (const monitor of [deletedMonitor, inDeletedProject])
      expect(await monitors.recordEvaluation(monitor, { state: 'ALERT', value: 0, ...window })).toBe(true);

    await expect(relayStateChangeAudits(db.ds, 100, () => Promise.reject(new Error('NATS unreachable')))).rejects.toThrow(
      'NATS unreachable',
    );
    expect(await monitors.delete(projects[0], deletedMonitor.id)).toBe(true);
    await db.ds.query('DELETE FROM projects WHERE id = $1', [projects[1]]);

    const published: AuditEvent[] = [];
    const publish = async (events: AuditEvent[]) => void published.push(...events);
    expect(await relayStateChangeAudits(db.ds, 100, publish)).toBe(2);
    expect(await relayStateChangeAudits(db.ds, 100, publish)).toBe(0);

    const audited = published.map((e) => ({
      target: e.target,
      action: e.action,
      projectId: e.details.projectId,
      name: e.details.name,
      to: e.details.to,
    }));
    expect(audited).toEqual([
      { target: deletedMonitor.id, action: 'monitor.state_changed', projectId: projects[0], name: 'deleted monitor', to: 'ALERT' },
      { target: inDeletedProject.id, action: 'monitor.state_changed', projectId: projects[1], name: 'in a deleted project', to: 'ALERT' },
    ]);
  });
});
