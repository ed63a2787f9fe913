/**
 * Splitting a large export into stream messages (DESIGN "Streams": OTLP is split by spans,
 * each chunk keeping its resource and scope).
 */
import { isJsonObject } from '@app/domain';
import type { ExportLogsServiceRequest } from './logs/otlp-logs-types';
import type { ExportTraceServiceRequest } from './otlp-types';

type Obj = Record<string, unknown>;

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? 'null');
const objects = (value: unknown): Obj[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);

/** Where a signal's export keeps its resources, their scopes and the scopes' items. */
interface ExportShape {
  resources: string;
  scopes: string;
  items: string;
}

const TRACES: ExportShape = { resources: 'resourceSpans', scopes: 'scopeSpans', items: 'spans' };
const LOGS: ExportShape = { resources: 'resourceLogs', scopes: 'scopeLogs', items: 'logRecords' };

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
  return splitExport(body as Obj, TRACES, maxBytes);
}

/** `splitOtlpRequest` for a logs export: by log records, each chunk keeping its resource and scope. */
export function splitOtlpLogsRequest(body: ExportLogsServiceRequest, maxBytes: number): ExportLogsServiceRequest[] {
  return splitExport(body as Obj, LOGS, maxBytes);
}

function splitExport(body: Obj, shape: ExportShape, maxBytes: number): Obj[] {
  if (bytesOf(body) <= maxBytes) return [body];
  // `{"resourceSpans":[]}`: what a chunk weighs before its first resource.
  const emptyChunkBytes = bytesOf({ [shape.resources]: [] });
  const chunks: Obj[] = [];
  let chunk: Obj[] = [];
  let size = emptyChunkBytes;
  // This chunk's copies of the current resource and scope, created on their first item.
  let resourceOut: { scopes: Obj[] } | null = null;
  let scopeOut: { items: unknown[] } | null = null;
  const flush = () => {
    if (chunk.length > 0) chunks.push({ [shape.resources]: chunk });
    chunk = [];
    size = emptyChunkBytes;
    resourceOut = null;
    scopeOut = null;
  };

  for (const resource of objects(body[shape.resources])) {
    // Rebuilt with the scopes last, so the shell's text is a prefix and suffix of the chunk's.
    const { [shape.scopes]: scopes, ...resourceRest } = resource;
    const resourceShellBytes = bytesOf({ ...resourceRest, [shape.scopes]: [] });
    resourceOut = null;
    for (const scope of objects(scopes)) {
      const { [shape.items]: items, ...scopeRest } = scope;
      const scopeShellBytes = bytesOf({ ...scopeRest, [shape.items]: [] });
      scopeOut = null;
      for (const item of Array.isArray(items) ? (items as unknown[]) : []) {
        const itemBytes = bytesOf(item);
        // Bytes this span adds: itself and a comma, or the scope (and resource) it opens.
        const added = (): number => {
          if (scopeOut) return itemBytes + 1;
          const scopeBytes = scopeShellBytes + itemBytes;
          if (resourceOut) return scopeBytes + (resourceOut.scopes.length > 0 ? 1 : 0);
          return resourceShellBytes + scopeBytes + (chunk.length > 0 ? 1 : 0);
        };
        if (chunk.length > 0 && size + added() > maxBytes) flush();
        size += added();
        if (!resourceOut) {
          const scopesOut: Obj[] = [];
          chunk.push({ ...resourceRest, [shape.scopes]: scopesOut });
          resourceOut = { scopes: scopesOut };
        }
        if (!scopeOut) {
          const itemsOut: unknown[] = [];
          resourceOut.scopes.push({ ...scopeRest, [shape.items]: itemsOut });
          scopeOut = { items: itemsOut };
        }
        scopeOut.items.push(item);
      }
    }
  }
  flush();
  return chunks;
}
