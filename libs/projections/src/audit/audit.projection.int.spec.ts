import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { AuditEvent } from '@app/domain';
import { PermanentMessageError } from '@app/eventlog';
import { useTestDatabase } from '@app/persistence/testing/test-database';
import { type StoredMessage } from '../projection';
import { auditProjection } from './audit.projection';

const stored = (body: string): StoredMessage => ({ seq: 1, headers: undefined, data: new TextEncoder().encode(body) });
const decode = (body: string) => auditProjection.decode(stored(body), { chunks: undefined as never });

describe('audit projection', () => {
  const db = useTestDatabase();

  const event = (over: Partial<AuditEvent> = {}): AuditEvent => ({
    id: randomUUID(),
    orgId: randomUUID(),
    actorUserId: null,
    action: 'api_key.created',
    target: 'k1',
    details: { name: 'ci' },
    ip: '10.0.0.1',
    at: '2026-11-24T10:00:00.000Z',
    ...over,
  });

  it('decodes a stored event with text Postgres cannot hold made storable, and refuses anything else for good', async () => {
    const e = event({ details: { 'na\u0000me': 'c\ud800i' } });
    expect(await decode(JSON.stringify(e))).toEqual({ ...e, details: { name: 'c\ufffdi' } });
    await expect(decode('{"id": 1}')).rejects.toBeInstanceOf(PermanentMessageError);
    await expect(decode('not json')).rejects.toBeInstanceOf(PermanentMessageError);
  });

  it('writes one row per event id, however often and in whatever order it is applied', async () => {
    const [a, b] = [event(), event({ action: 'api_key.revoked' })];
    await db.ds.transaction((m) => auditProjection.apply(m, [a, b]));
    await db.ds.transaction((m) => auditProjection.apply(m, [b, a, a]));
    const rows = await db.ds.query('SELECT id, action, target, details FROM audit_log WHERE id = ANY($1) ORDER BY action', [[a.id, b.id]]);
    expect(rows).toEqual([
      { id: a.id, action: 'api_key.created', target: 'k1', details: { name: 'ci' } },
      { id: b.id, action: 'api_key.revoked', target: 'k1', details: { name: 'ci' } },
    ]);
  });
});
