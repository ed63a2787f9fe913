/**
 * Structural check of an OTLP/JSON ExportTraceServiceRequest (OTLP/HTTP JSON encoding,
 * SPEC 4.2, CONTRACT "OTLP", BAD_INPUTS). Unknown fields are ignored, as OTLP requires, so
 * snake_case keys (`resource_spans`) are unknown and an export spelled that way has no spans.
 * `null` is an absent field (proto3 JSON).
 */
import {
  type Problems,
  checkAttributes,
  checkExportRequest,
  isObj,
  optionalArray,
  optionalEnum,
  optionalObject,
  optionalString,
  optionalUnixNano,
  requiredHex,
} from './otlp-checks';
import { isLinkSpanHex, isLinkTraceHex, parentRefOf } from './otlp-wire';

function checkStatus(value: unknown, path: string, problems: Problems): void {
  const status = optionalObject(value, path, problems);
  if (!status) return;
  optionalEnum(status.code, `${path}.code`, problems);
  optionalString(status.message, `${path}.message`, problems);
}

function checkEvents(value: unknown, path: string, problems: Problems): void {
  optionalArray(value, path, problems).forEach((item, i) => {
    const here = `${path}[${i}]`;
    if (!isObj(item)) return problems.add(here, 'must be an object');
    optionalString(item.name, `${here}.name`, problems);
    optionalUnixNano(item.timeUnixNano, `${here}.timeUnixNano`, problems);
    checkAttributes(item.attributes, `${here}.attributes`, problems);
  });
}

function checkLinks(value: unknown, path: string, problems: Problems): void {
  optionalArray(value, path, problems).forEach((item, i) => {
    const here = `${path}[${i}]`;
    if (!isObj(item)) return problems.add(here, 'must be an object');
    if (!isLinkTraceHex(item.traceId)) problems.add(`${here}.traceId`, 'must be 32 hex characters');
    if (!isLinkSpanHex(item.spanId)) problems.add(`${here}.spanId`, 'must be 16 hex characters');
    optionalString(item.traceState, `${here}.traceState`, problems);
    checkAttributes(item.attributes, `${here}.attributes`, problems);
  });
}

function checkSpan(span: unknown, path: string, problems: Problems): void {
  if (!isObj(span)) return problems.add(path, 'must be an object');
  requiredHex(span.traceId, 32, `${path}.traceId`, problems);
  requiredHex(span.spanId, 16, `${path}.spanId`, problems);
  if (parentRefOf(span.parentSpanId).kind === 'invalid') problems.add(`${path}.parentSpanId`, 'must be empty or 16 hex characters');
  optionalString(span.name, `${path}.name`, problems);
  optionalString(span.traceState, `${path}.traceState`, problems);
  optionalEnum(span.kind, `${path}.kind`, problems);
  optionalUnixNano(span.startTimeUnixNano, `${path}.startTimeUnixNano`, problems);
  optionalUnixNano(span.endTimeUnixNano, `${path}.endTimeUnixNano`, problems);
  checkAttributes(span.attributes, `${path}.attributes`, problems);
  checkEvents(span.events, `${path}.events`, problems);
  checkLinks(span.links, `${path}.links`, problems);
  checkStatus(span.status, `${path}.status`, problems);
}

/**
 * Checks that `body` is an OTLP/JSON ExportTraceServiceRequest that `otlpToFacts` can take,
 * and counts its spans (an empty export has none). Throws DomainError VALIDATION_ERROR
 * listing every problem with its path, e.g.
 * `resourceSpans[0].scopeSpans[0].spans[3].traceId: must be 32 hex characters`
 * (the first MAX_LISTED_PROBLEMS of them); never throws anything else, whatever the JSON.
 */
export function validateOtlpRequest(body: unknown): { spanCount: number } {
  const spanCount = checkExportRequest(
    body,
    'ExportTraceServiceRequest',
    { resources: 'resourceSpans', scopes: 'scopeSpans', items: 'spans' },
    checkSpan,
  );
  return { spanCount };
}
