import type { JetStreamClient } from 'nats';
import { USAGE_SCHEMA, type UsageCounted } from '@app/domain';
import { toNatsHeaders } from './headers';
import type { StreamLayout } from './streams';
import { publishWithRetry } from './publish-retry';

export const usageSubject = (layout: StreamLayout, orgId: string): string => `${layout.subjectRoot('usage')}.${orgId}`;

/** Appends counts to USAGE and resolves once all are acknowledged; the count's id is the message id. */
export async function appendUsage(js: JetStreamClient, layout: StreamLayout, events: UsageCounted[]): Promise<void> {
  await Promise.all(
    events.map((e) =>
      publishWithRetry(js, usageSubject(layout, e.orgId), JSON.stringify(e), {
        msgID: e.id,
        headers: toNatsHeaders({ 'Spanlog-Schema': USAGE_SCHEMA }),
      }),
    ),
  );
}
