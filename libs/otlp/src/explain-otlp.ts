/**
 * Why a span's fields are what they are: per span, each field with its value, the attributes it
 * came from and the rule that chose it, the values rules of lower precedence found and lost,
 * and the attributes no rule used. Computed by the conversion's own `mapSpan`, so it shows what
 * ingestion would store; it stores and counts nothing.
 */
import { type JsonValue, isJsonObject } from '@app/domain';
import { type Mapped, mapSpan } from './conventions/map-span';
import { resourceContextOf, spanViewOf, totalTokensOf } from './otlp-to-facts';
import type { ExportTraceServiceRequest } from './otlp-types';
import { parentRefOf, spanHexOf, traceHexOf } from './otlp-wire';

export interface ExplainedField {
  value: JsonValue;
  /** Attribute keys (`resource <key>` on the resource, `event <name>` for span events). */
  from: string[];
  /** The table or SPEC row that chose the value. */
  rule: string;
}

export interface SpanExplanation {
  traceId: string;
  spanId: string;
  name: string | null;
  span: Record<string, ExplainedField>;
  trace: Record<string, ExplainedField>;
  overridden: (ExplainedField & { field: string })[];
  unused: string[];
}

type Obj = Record<string, unknown>;
const objects = (value: unknown): Obj[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);
const field = ({ value, from, rule }: Mapped): ExplainedField => ({ value, from, rule });

function explainSpan(span: Obj, resourceSpans: Obj): SpanExplanation | null {
  const traceHex = traceHexOf(span.traceId);
  const spanHex = spanHexOf(span.spanId);
  if (traceHex === null || spanHex === null) return null;
  const resource = resourceContextOf(resourceSpans);
  const mapping = mapSpan(spanViewOf(span, resource));
  const name = typeof span.name === 'string' && span.name !== '' ? span.name : null;
  const spanFields: Record<string, ExplainedField> = { type: field(mapping.type) };
  for (const [key, mapped] of Object.entries(mapping.span)) spanFields[key] = field(mapped);
  const totalTokens = totalTokensOf(mapping);
  if (totalTokens !== undefined)
    spanFields.totalTokens = {
      value: totalTokens,
      from: [...spanFields.promptTokens.from, ...spanFields.completionTokens.from],
      rule: 'prompt + completion tokens',
    };
  const traceFields: Record<string, ExplainedField> = {};
  for (const [key, mapped] of Object.entries(mapping.trace)) traceFields[key] = field(mapped);
  const isRoot = parentRefOf(span.parentSpanId).kind === 'root';
  if (!traceFields.name && isRoot && name !== null) traceFields.name = { value: name, from: ['span name'], rule: 'SPEC 2.1 root span' };
  // The trace's own input and output, when it states any, win over these (ROOT_CONTENT_VERSION_TIME).
  for (const key of ['input', 'output'] as const) {
    const content = mapping.span[key];
    if (isRoot && content)
      traceFields[key] = { value: content.value, from: content.from, rule: 'root span, unless the trace states its own' };
  }
  if (resource.serviceTag !== undefined)
    traceFields.serviceTag = { value: resource.serviceTag, from: ['resource service.name'], rule: 'SPEC 2.1' };
  const resourceKeys = Object.keys(resource.attributes);
  if (resourceKeys.length > 0)
    traceFields.resourceMetadata = { value: resource.attributes, from: resourceKeys.map((k) => `resource ${k}`), rule: 'SPEC 2.1' };
  return {
    traceId: traceHex,
    spanId: spanHex,
    name,
    span: spanFields,
    trace: traceFields,
    overridden: mapping.overridden.map((o) => ({ field: o.field, ...field(o) })),
    unused: mapping.unused,
  };
}

/** Every span of a validated export, in body order (`validateOtlpRequest` first: malformed spans are skipped here). */
export function explainOtlpRequest(body: ExportTraceServiceRequest): { spans: SpanExplanation[] } {
  const spans: SpanExplanation[] = [];
  for (const resourceSpans of objects((body as Obj).resourceSpans)) {
    for (const scopeSpans of objects(resourceSpans.scopeSpans)) {
      for (const span of objects(scopeSpans.spans)) {
        const explained = explainSpan(span, resourceSpans);
        if (explained) spans.push(explained);
      }
    }
  }
  return { spans };
}
