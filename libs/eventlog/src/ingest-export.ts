import { ChunkReader } from './chunk-reader';
import { PermanentMessageError } from './consumer';
import { ingestExportEntry } from './ingest-export-line';
import type { NatsResources } from './nats-resources';
import { firstSeqStoredSince, replayStream, streamLastSeq } from './replay';
import { fromConsumed } from './stored-message';

/**
 * How far a message's `receivedAt` (the API's clock, before publishing) may lie from when the
 * stream stored it (the server's clock, after): the time a publish may take plus clock skew
 * between hosts. The stream's own time index is searched this much wider than the bounds, and
 * the bounds are then applied exactly to `receivedAt`.
 */
export const RECEIVED_AT_SKEW_MS = 5 * 60_000;
/**
 * Messages fetched at once: each may be as large as the server's max payload, and the export
 * holds one fetch at a time, so its memory is bounded by this many messages whatever its size
 * (measured: a 40 MB export peaks 5–12 MB above a 16 MB one).
 */
const EXPORT_BATCH = 4;

export interface IngestExportOptions {
  orgId: string;
  projectId?: string;
  /** Messages received at or after this instant. */
  from?: Date;
  /** Messages received before this instant. */
  to?: Date;
}

export interface IngestExportSummary {
  stream: string;
  /** The stream sequences read (first > last when there was nothing to read). */
  fromSeq: number;
  toSeq: number;
  /** Lines written. */
  messages: number;
  /** Lines whose envelope or data could not be read (they carry an `error`). */
  unreadable: number;
}

/**
 * Writes an organization's (or one project's) stored INGEST messages as NDJSON lines, in
 * stream order, awaiting `write` for each line, so a slow reader holds the export back instead
 * of filling memory. Deletion events are messages like the others and are included.
 */
export async function exportIngest(
  nats: NatsResources,
  options: IngestExportOptions,
  write: (line: string) => Promise<void>,
): Promise<IngestExportSummary> {
  const root = nats.layout.subjectRoot('ingest');
  const filterSubject = `${root}.${options.orgId}.${options.projectId ?? '*'}.*`;
  const lastSeq = await streamLastSeq(nats, 'ingest');
  const fromSeq = options.from
    ? await firstSeqStoredSince(nats, 'ingest', new Date(options.from.getTime() - RECEIVED_AT_SKEW_MS), filterSubject)
    : 1;
  const beyond = options.to
    ? await firstSeqStoredSince(nats, 'ingest', new Date(options.to.getTime() + RECEIVED_AT_SKEW_MS), filterSubject)
    : null;
  const summary: IngestExportSummary = {
    stream: nats.layout.streamName('ingest'),
    fromSeq: fromSeq ?? lastSeq + 1,
    toSeq: beyond === null ? lastSeq : beyond - 1,
    messages: 0,
    unreadable: 0,
  };
  const from = options.from?.getTime() ?? -Infinity;
  const to = options.to?.getTime() ?? Infinity;
  const chunks = new ChunkReader(nats.js, nats.layout);
  await replayStream(
    nats,
    'ingest',
    { fromSeq: summary.fromSeq, toSeq: summary.toSeq, batchSize: EXPORT_BATCH, filterSubject },
    async (msgs) => {
      for (const consumed of msgs) {
        if (consumed.seq > summary.toSeq) break;
        const msg = fromConsumed(consumed);
        const entry = ingestExportEntry(msg, root, await chunks.read(msg).catch(unreadable));
        if (entry.at < from || entry.at >= to) continue;
        await write(`${entry.line}\n`);
        summary.messages++;
        if (!entry.readable) summary.unreadable++;
      }
    },
  );
  return summary;
}

/** A blob that is gone makes a line with an error; anything else (the server unreachable) stops the export. */
function unreadable(err: unknown): Error {
  if (err instanceof PermanentMessageError) return err;
  throw err;
}
