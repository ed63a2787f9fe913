/**
 * OTLP/JSON traces (OTLP/HTTP JSON encoding): types, validation, conversion into the facts
 * every projection applies, and splitting into stream messages. Pure: no I/O, no Nest.
 */
export * from './otlp-types';
export { type OtlpEnvelope, otlpToFacts } from './otlp-to-facts';
export { type ExplainedField, type SpanExplanation, explainOtlpRequest } from './explain-otlp';
export { MAX_ANY_VALUE_DEPTH, MAX_LISTED_PROBLEMS } from './otlp-checks';
export { validateOtlpRequest } from './validate-otlp-request';
export { splitOtlpLogsRequest, splitOtlpRequest } from './split-otlp-request';
export * from './logs/otlp-logs-types';
export { validateOtlpLogsRequest } from './logs/validate-otlp-logs';
export { genAiLogsOf, otlpLogsToFacts } from './logs/otlp-logs-to-facts';
export { decodeAnyValue, decodeAttributes, decodeKeyValue } from './attributes';
export { CONVENTIONS, type Mapped, type SpanMapping, mapSpan, spanTypeOf } from './conventions/map-span';
export { MAX_UNIX_NANO, unixNanoTextOf, unixNanoTextToIso } from './otlp-wire';
