import type { JsMsg } from 'nats';
import {
  INGEST_SCHEMAS,
  type IngestEnvelope,
  type TelemetryFacts,
  deletionFacts,
  emptyFacts,
  envelopeFromHeaders,
  foldFacts,
  handScoreFacts,
  nativeEventsToFacts,
  parseHandScoreMessage,
  parseJsonSafely,
  parseRunItemsMessage,
  parseTraceDeletionBatch,
  runItemsToFacts,
  scoreRequestToFacts,
  validateNativeBatch,
  validateScoreRequest,
} from '@app/domain';
import { type ChunkReader, PermanentMessageError, headerReader } from '@app/eventlog';
import { otlpLogsToFacts, otlpToFacts, validateOtlpLogsRequest, validateOtlpRequest } from '@app/otlp';

export interface DecodedIngestMessage {
  /** The message's stream sequence. */
  seq: number;
  envelope: IngestEnvelope;
  facts: TelemetryFacts;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * From a stored INGEST message to the facts it states. The stored data is what the client
 * sent, so conversion runs here: a corrected converter applies to old data on rebuild.
 * Anything unreadable is permanent: retrying cannot fix it. Costs are computed when a batch is
 * prepared (`pricedFacts`), with the project's prices as they are then.
 */
export async function decodeIngestMessage(
  msg: Pick<JsMsg, 'seq' | 'headers' | 'data'>,
  chunks: Pick<ChunkReader, 'read'>,
): Promise<DecodedIngestMessage> {
  let envelope: IngestEnvelope;
  let body: unknown;
  try {
    envelope = envelopeFromHeaders(headerReader(msg.headers));
  } catch (err) {
    throw new PermanentMessageError((err as Error).message);
  }
  const data = await chunks.read(msg);
  try {
    body = parseJsonSafely(utf8.decode(data), 'remove');
  } catch (err) {
    throw new PermanentMessageError(`data is not JSON: ${(err as Error).message}`);
  }
  return { seq: msg.seq, envelope, facts: ingestFactsOf(envelope, body) };
}

/**
 * The facts a parsed message body states, validated and converted by its schema, folded
 * already (the batch's fold gives the same rows, the merge being associative): an OTLP export
 * states its trace once per span, and those deltas die with the message's decode instead of
 * surviving, for the collector to copy, until the whole batch is decoded (issue 25).
 */
export function ingestFactsOf(envelope: IngestEnvelope, body: unknown): TelemetryFacts {
  return foldFacts([factsOf(envelope, body)]);
}

function factsOf(envelope: IngestEnvelope, body: unknown): TelemetryFacts {
  const target = { projectId: envelope.projectId, receivedAt: envelope.receivedAt };
  try {
    switch (envelope.schema) {
      case INGEST_SCHEMAS.nativeBatch:
        return nativeEventsToFacts(validateNativeBatch(body).events, target);
      case INGEST_SCHEMAS.otlp:
        validateOtlpRequest(body);
        return otlpToFacts(body as Parameters<typeof otlpToFacts>[0], target);
      case INGEST_SCHEMAS.otlpLogs:
        validateOtlpLogsRequest(body);
        return otlpLogsToFacts(body as Parameters<typeof otlpLogsToFacts>[0], target);
      case INGEST_SCHEMAS.scores:
        return scoreRequestToFacts(validateScoreRequest(body), target);
      case INGEST_SCHEMAS.runItems:
        return runItemsToFacts(parseRunItemsMessage(body), target);
      case INGEST_SCHEMAS.handScore:
        return handScoreFacts(parseHandScoreMessage(body), target);
      case INGEST_SCHEMAS.deleted:
        return { ...emptyFacts(), deletions: deletionFacts(parseTraceDeletionBatch(body), target) };
      default: {
        const unknownSchema: never = envelope.schema;
        throw new Error(`no decoder for ${String(unknownSchema)}`);
      }
    }
  } catch (err) {
    throw new PermanentMessageError(`${envelope.schema} data rejected: ${(err as Error).message}`);
  }
}
