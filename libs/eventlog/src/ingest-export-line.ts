import { ENVELOPE_HEADERS, envelopeFromHeaders } from '@app/domain';
import { headerReader } from './headers';
import type { StreamMessage } from './stored-message';

export interface IngestExportEntry {
  /** One NDJSON line, without its line break. */
  line: string;
  /** The instant the export's time bounds apply to: the envelope's receivedAt, else when the stream stored it. */
  at: number;
  /** False when the line carries an error. */
  readable: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * One stored INGEST message as a line of the audit export:
 * `{"seq","subject","receivedAt","schema","orgId","projectId","data"}`, plus `"error"` when the
 * envelope or the data cannot be read (then `data` is null if the data is at fault).
 *
 * `data` is the stored JSON text itself, not a parse re-serialized: a number beyond 2^53 (OTLP
 * nanoseconds sent as JSON numbers) keeps every digit. A JSON text holds line breaks only as
 * whitespace between tokens (inside strings they are escaped), so turning them into spaces
 * keeps the value and the line whole. `data` is what `read` resolved (object-store chunks
 * included), or the error that kept it from being read.
 */
export function ingestExportEntry(
  msg: Pick<StreamMessage, 'seq' | 'subject' | 'headers' | 'storedAt'>,
  subjectRoot: string,
  data: Uint8Array | Error,
): IngestExportEntry {
  const header = headerReader(msg.headers);
  const [orgId = null, projectId = null] = msg.subject.slice(subjectRoot.length + 1).split('.');
  const receivedAtHeader = header(ENVELOPE_HEADERS.receivedAt);
  const receivedAtMs = receivedAtHeader === undefined ? Number.NaN : Date.parse(receivedAtHeader);
  const receivedAt = Number.isNaN(receivedAtMs) ? null : new Date(receivedAtMs).toISOString();
  const errors: string[] = [];
  try {
    envelopeFromHeaders(header);
  } catch (err) {
    errors.push((err as Error).message);
  }
  let json: string | null = null;
  if (data instanceof Error) errors.push(data.message);
  else {
    try {
      json = jsonText(data);
    } catch (err) {
      errors.push(`data is not JSON: ${(err as Error).message}`);
    }
  }
  const head = JSON.stringify({
    seq: msg.seq,
    subject: msg.subject,
    receivedAt,
    schema: header(ENVELOPE_HEADERS.schema) ?? null,
    orgId,
    projectId,
  });
  const tail = errors.length ? `,"error":${JSON.stringify(errors.join('; '))}` : '';
  return {
    line: `${head.slice(0, -1)},"data":${json ?? 'null'}${tail}}`,
    at: receivedAt === null ? msg.storedAt.getTime() : receivedAtMs,
    readable: errors.length === 0,
  };
}

/** The data as one line of JSON text; throws when it is not UTF-8 JSON. */
function jsonText(data: Uint8Array): string {
  const text = utf8.decode(data);
  JSON.parse(text);
  return /[\r\n]/.test(text) ? text.replace(/[\r\n]/g, ' ') : text;
}
