import { MCP_LIMITS, cutForAgent } from '@app/domain';
import type { PageSpan } from '../traces/trace.mapper';

/** The fields `get_trace` cuts to MCP_LIMITS.fieldChars: the large ones an agent asks `get_span` for whole. */
const CUT_FIELDS = ['input', 'output'] as const;

/**
 * `fields` of `record` as an agent's tree shows them: each cut to MCP_LIMITS.fieldChars, and
 * `truncated` naming the full size in bytes of each one cut, here or by the page's read (which
 * left it null: TRACE_READ_LIMITS.mcp).
 */
function cutFields(record: Record<string, unknown>, readCut: Record<string, number> | undefined) {
  const out: Record<string, unknown> = {};
  const truncated: Record<string, number> = {};
  for (const field of CUT_FIELDS) {
    const earlier = readCut?.[field];
    if (earlier !== undefined) {
      out[field] = null;
      truncated[field] = earlier;
      continue;
    }
    const { value, fullBytes } = cutForAgent(record[field], MCP_LIMITS.fieldChars);
    out[field] = value;
    if (fullBytes !== undefined) truncated[field] = fullBytes;
  }
  return Object.keys(truncated).length ? { ...out, truncated } : out;
}

const durationMs = (start: string | null, end: string | null) => (start && end ? Date.parse(end) - Date.parse(start) : null);

/** A span of `get_trace`'s tree: where it hangs, what it did, what it cost, when, and its input and output cut. */
export function toAgentSpan(span: PageSpan) {
  return {
    id: span.id,
    externalId: span.externalId,
    parentId: span.parentId,
    type: span.type,
    operation: span.operation,
    name: span.name,
    model: span.model,
    promptTokens: span.promptTokens,
    completionTokens: span.completionTokens,
    totalTokens: span.totalTokens,
    cost: span.cost,
    startTime: span.startTime,
    endTime: span.endTime,
    durationMs: durationMs(span.startTime, span.endTime),
    level: span.level,
    statusMessage: span.statusMessage,
    ...cutFields(span, span.truncated),
  };
}

/** A trace's own fields for an agent: as the REST trace, its input and output cut as a span's. */
export function toAgentTrace<T extends { input: unknown; output: unknown; truncated?: Record<string, number> }>(trace: T) {
  const { input: _input, output: _output, truncated: _truncated, ...rest } = trace;
  return { ...rest, ...cutFields(trace, trace.truncated) };
}
