import type { DataSource } from 'typeorm';
import { type AuditEvent, SPANLOG_NAMESPACE, uuidV5 } from '@app/domain';
import { MonitorStore, type UnauditedStateChange } from '@app/persistence';
import { relayOutbox } from '../reactors/relay-outbox';

/** Audit events of state changes, per history row; the same on every try, so AUDIT stores each once. */
const STATE_CHANGE_EVENTS = uuidV5('monitor state changes', SPANLOG_NAMESPACE);

export function stateChangeAuditEvent(change: UnauditedStateChange): AuditEvent {
  return {
    id: uuidV5(change.historyId, STATE_CHANGE_EVENTS),
    orgId: change.orgId,
    actorUserId: null,
    action: 'monitor.state_changed',
    target: change.monitorId,
    details: {
      projectId: change.projectId,
      name: change.name,
      from: change.from,
      to: change.to,
      value: change.value,
      threshold: change.threshold,
      comparison: change.comparison,
      windowStart: change.windowStart.toISOString(),
      windowEnd: change.windowEnd.toISOString(),
    },
    ip: null,
    at: change.at.toISOString(),
  };
}

/**
 * Publishes up to `limit` unaudited state changes with `publish` and marks them audited, in one
 * transaction: a change whose publish fails stays unaudited for the next try.
 */
export const relayStateChangeAudits = (ds: DataSource, limit: number, publish: (events: AuditEvent[]) => Promise<void>): Promise<number> =>
  relayOutbox(
    ds,
    {
      take: (tx, n) => new MonitorStore(tx).takeUnauditedStateChanges(n),
      publish: (changes) => publish(changes.map(stateChangeAuditEvent)),
      settle: (tx, changes) => new MonitorStore(tx).markStateChangesAudited(changes.map((c) => c.historyId)),
    },
    limit,
  );
