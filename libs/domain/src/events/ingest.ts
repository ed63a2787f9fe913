/**
 * The INGEST stream's message envelope (DESIGN "Streams"): it travels in NATS headers, so
 * the data stays the client's bytes. Every schema carries a version; readers upcast.
 */
export const INGEST_SCHEMAS = {
  /** Native batch body: `{ batch: [...] }` as the client sent it, or one chunk of it. */
  nativeBatch: 'ingest.batch/v1',
  /** OTLP/JSON ExportTraceServiceRequest, or one chunk of it. */
  otlp: 'ingest.otel/v1',
  /** Traces removed by retention (`TraceDeletionBatch`), honoured by every projection, live or rebuilding. */
  deleted: 'ingest.deleted/v1',
  /** POST /api/v1/scores body as the client sent it: one score or `{ scores: [...] }`. */
  scores: 'ingest.scores/v1',
  /** OTLP/JSON ExportLogsServiceRequest cut down to the records that attach GenAI content to a span, or one chunk of it. */
  otlpLogs: 'ingest.otel-logs/v1',
  /** Dataset run items the API linked (`RunItemsMessageData`): which trace a run produced for each dataset item. */
  runItems: 'ingest.run-items/v1',
  /** A score given by hand in the dashboard, or its removal (`HandScoreMessage`). */
  handScore: 'ingest.hand-score/v1',
} as const;

export type IngestSchema = (typeof INGEST_SCHEMAS)[keyof typeof INGEST_SCHEMAS];

export const ENVELOPE_HEADERS = {
  schema: 'Spanlog-Schema',
  orgId: 'Spanlog-Org',
  projectId: 'Spanlog-Project',
  apiKeyId: 'Spanlog-Key',
  receivedAt: 'Spanlog-Received-At',
  requestId: 'Spanlog-Request-Id',
  chunk: 'Spanlog-Chunk',
} as const;

export interface IngestEnvelope {
  schema: IngestSchema;
  orgId: string;
  projectId: string;
  apiKeyId: string;
  /** ISO time the API accepted the request: the projection's only clock. */
  receivedAt: string;
  requestId: string;
  chunkIndex: number;
  chunkCount: number;
}

export function envelopeToHeaders(e: IngestEnvelope): Record<string, string> {
  return {
    [ENVELOPE_HEADERS.schema]: e.schema,
    [ENVELOPE_HEADERS.orgId]: e.orgId,
    [ENVELOPE_HEADERS.projectId]: e.projectId,
    [ENVELOPE_HEADERS.apiKeyId]: e.apiKeyId,
    [ENVELOPE_HEADERS.receivedAt]: e.receivedAt,
    [ENVELOPE_HEADERS.requestId]: e.requestId,
    [ENVELOPE_HEADERS.chunk]: `${e.chunkIndex}/${e.chunkCount}`,
  };
}

/** Reads and checks an envelope; throws with the header at fault so the message can be dead-lettered. */
export function envelopeFromHeaders(get: (name: string) => string | undefined): IngestEnvelope {
  const required = (name: string): string => {
    const value = get(name);
    if (!value) throw new Error(`envelope header ${name} is missing`);
    return value;
  };
  const schema = required(ENVELOPE_HEADERS.schema);
  if (!(Object.values(INGEST_SCHEMAS) as string[]).includes(schema)) {
    throw new Error(`envelope schema ${schema} is not known to this reader`);
  }
  const receivedAt = required(ENVELOPE_HEADERS.receivedAt);
  if (Number.isNaN(Date.parse(receivedAt))) throw new Error(`envelope ${ENVELOPE_HEADERS.receivedAt} is not a timestamp`);
  const chunk = /^(\d+)\/(\d+)$/.exec(required(ENVELOPE_HEADERS.chunk));
  if (!chunk) throw new Error(`envelope ${ENVELOPE_HEADERS.chunk} must be index/count`);
  return {
    schema: schema as IngestSchema,
    orgId: required(ENVELOPE_HEADERS.orgId),
    projectId: required(ENVELOPE_HEADERS.projectId),
    apiKeyId: required(ENVELOPE_HEADERS.apiKeyId),
    receivedAt: new Date(receivedAt).toISOString(),
    requestId: required(ENVELOPE_HEADERS.requestId),
    chunkIndex: Number(chunk[1]),
    chunkCount: Number(chunk[2]),
  };
}
