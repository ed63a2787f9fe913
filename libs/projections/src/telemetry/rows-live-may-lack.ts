import type { DecodedIngestMessage } from './decode-ingest-message';
import type { ReplayedRow } from './tables/shadow-rows';

/**
 * The messages whose rows the live tables may lack: past the live watermark at the rebuild's
 * start, or dead-lettered (never applied live). Plain data, so a worker thread asks the same.
 */
export interface LiveMayLack {
  liveFloor: number;
  deadLettered: readonly number[];
}

/** The traces and spans one message wrote, with its organization: all a rebuild's usage count needs of it. */
export interface RowsWritten {
  orgId: string;
  traces: [projectId: string, id: string][];
  spans: [projectId: string, id: string][];
}

/** Whether the live tables may lack the rows of the message at `seq`. */
export function liveMayLackRowsOf({ liveFloor, deadLettered }: LiveMayLack): (seq: number) => boolean {
  const dead = new Set(deadLettered);
  return (seq) => seq > liveFloor || dead.has(seq);
}

export const rowsWrittenBy = ({ envelope, facts }: DecodedIngestMessage): RowsWritten => ({
  orgId: envelope.orgId,
  traces: facts.traces.map((t) => [t.projectId, t.id]),
  spans: facts.spans.map((s) => [s.projectId, s.id]),
});

/**
 * The traces and spans written by messages live may not have applied: the only rows the live
 * tables may lack (a backlog's and the dead letters' worth, not the stream's).
 */
export class RowsLiveMayLack {
  readonly traces: ReplayedRow[] = [];
  readonly spans: ReplayedRow[] = [];
  private readonly seen = new Set<string>();

  add({ orgId, traces, spans }: RowsWritten): void {
    const add = (table: 'traces' | 'spans', projectId: string, id: string) => {
      const key = `${table}:${projectId}:${id}`;
      if (this.seen.has(key)) return;
      this.seen.add(key);
      this[table].push({ orgId, projectId, id });
    };
    for (const [projectId, id] of traces) add('traces', projectId, id);
    for (const [projectId, id] of spans) add('spans', projectId, id);
  }
}
