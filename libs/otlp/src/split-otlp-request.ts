/**
 * Splitting a large export into stream messages (DESIGN "Streams": OTLP is split by spans,
 * each chunk keeping its resource and scope).
 */
import { isJsonObject } from '@app/domain';
import type { ExportTraceServiceRequest, ResourceSpans, ScopeSpans, Span } from './otlp-types';

type Obj = Record<string, unknown>;

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? 'null');
const objects = (value: unknown): Obj[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);

/** `{"resourceSpans":[]}`: what a chunk weighs before its first resource. */
const EMPTY_CHUNK_BYTES = bytesOf({ resourceSpans: [] });

/**
 * Splits an export by spans into exports whose `JSON.stringify` is at most `maxBytes` UTF-8
 * bytes, in body order; each chunk repeats the resource and scope (every other field of
 * them too) of the spans it holds. Deterministic, so a retried request yields the same
 * chunks. A body that fits is returned as is (one chunk, same object). A span that does not
 * fit even alone with its resource and scope becomes a chunk of its own, over `maxBytes`:
 * the caller stores it elsewhere. Resources and scopes without spans, and fields at the
 * root other than `resourceSpans`, are not carried into chunks: they state nothing.
 * O(size of the body): every span, resource and scope is serialized once to be measured.
 */
export function splitOtlpRequest(body: ExportTraceServiceRequest, maxBytes: number): ExportTraceServiceRequest[] {
  if (bytesOf(body) <= maxBytes) return [body];
  const chunks: ExportTraceServiceRequest[] = [];
  let chunk: ResourceSpans[] = [];
  let size = EMPTY_CHUNK_BYTES;
  // This chunk's copies of the current resource and scope, created on their first span.
  let resourceOut: (ResourceSpans & { scopeSpans: ScopeSpans[] }) | null = null;
  let scopeOut: (ScopeSpans & { spans: Span[] }) | null = null;
  const flush = () => {
    if (chunk.length > 0) chunks.push({ resourceSpans: chunk });
    chunk = [];
    size = EMPTY_CHUNK_BYTES;
    resourceOut = null;
    scopeOut = null;
  };

  for (const resourceSpans of objects((body as Obj).resourceSpans)) {
    // Rebuilt with scopeSpans last, so the shell's text is a prefix and suffix of the chunk's.
    const { scopeSpans, ...resourceRest } = resourceSpans;
    const resourceShellBytes = bytesOf({ ...resourceRest, scopeSpans: [] });
    resourceOut = null;
    for (const scope of objects(scopeSpans)) {
      const { spans, ...scopeRest } = scope;
      const scopeShellBytes = bytesOf({ ...scopeRest, spans: [] });
      scopeOut = null;
      for (const span of Array.isArray(spans) ? (spans as Span[]) : []) {
        const spanBytes = bytesOf(span);
        // Bytes this span adds: itself and a comma, or the scope (and resource) it opens.
        const added = (): number => {
          if (scopeOut) return spanBytes + 1;
          const scopeBytes = scopeShellBytes + spanBytes;
          if (resourceOut) return scopeBytes + (resourceOut.scopeSpans.length > 0 ? 1 : 0);
          return resourceShellBytes + scopeBytes + (chunk.length > 0 ? 1 : 0);
        };
        if (chunk.length > 0 && size + added() > maxBytes) flush();
        size += added();
        if (!resourceOut) {
          resourceOut = { ...(resourceRest as ResourceSpans), scopeSpans: [] };
          chunk.push(resourceOut);
        }
        if (!scopeOut) {
          scopeOut = { ...(scopeRest as ScopeSpans), spans: [] };
          resourceOut.scopeSpans.push(scopeOut);
        }
        scopeOut.spans.push(span);
      }
    }
  }
  flush();
  return chunks;
}
