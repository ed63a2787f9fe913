import { type ExportLogsServiceRequest, type ExportTraceServiceRequest, splitOtlpLogsRequest, splitOtlpRequest } from '@app/otlp';

const encoder = new TextEncoder();

/**
 * Splits a native batch into `{"batch":[…]}` documents of at most `maxBytes` each, in
 * order. The client's bytes are kept whenever they fit one message (the common case); a
 * single event larger than `maxBytes` becomes a chunk of its own, which the publisher
 * moves to the blob bucket. Deterministic, so a retried request yields the same chunks.
 */
export function chunkNativeBatch(raw: Uint8Array, events: readonly unknown[], maxBytes: number): Uint8Array[] {
  return chunkListDocument(raw, 'batch', events, maxBytes);
}

/** Splits a `{"scores":[…]}` body the way `chunkNativeBatch` splits a batch. */
export function chunkScores(raw: Uint8Array, scores: readonly unknown[], maxBytes: number): Uint8Array[] {
  return chunkListDocument(raw, 'scores', scores, maxBytes);
}

function chunkListDocument(raw: Uint8Array, key: string, items: readonly unknown[], maxBytes: number): Uint8Array[] {
  if (raw.byteLength <= maxBytes) return [raw];
  const chunks: Uint8Array[] = [];
  const overhead = `{"${key}":[]}`.length;
  let parts: string[] = [];
  let size = overhead;
  const flush = () => {
    if (parts.length) chunks.push(encoder.encode(`{"${key}":[${parts.join(',')}]}`));
    parts = [];
    size = overhead;
  };
  for (const item of items) {
    const json = JSON.stringify(item) ?? 'null';
    const bytes = Buffer.byteLength(json) + 1;
    if (parts.length && size + bytes > maxBytes) flush();
    parts.push(json);
    size += bytes;
  }
  flush();
  return chunks;
}

/**
 * Splits an OTLP/JSON export into exports of at most `maxBytes` each, by spans, each chunk
 * keeping its resource and scope. As for native batches, the client's bytes are kept
 * whenever they fit one message, and a span too large for one message alone becomes a chunk
 * of its own for the blob bucket. Deterministic, so a retried request yields the same chunks.
 */
/** Splits an OTLP logs export by records the way `chunkOtlpExport` splits spans. */
export function chunkOtlpLogs(raw: Uint8Array, body: ExportLogsServiceRequest, maxBytes: number): Uint8Array[] {
  if (raw.byteLength <= maxBytes) return [raw];
  return splitOtlpLogsRequest(body, maxBytes).map((chunk) => encoder.encode(JSON.stringify(chunk)));
}

export function chunkOtlpExport(raw: Uint8Array, body: ExportTraceServiceRequest, maxBytes: number): Uint8Array[] {
  if (raw.byteLength <= maxBytes) return [raw];
  return splitOtlpRequest(body, maxBytes).map((chunk) => encoder.encode(JSON.stringify(chunk)));
}
