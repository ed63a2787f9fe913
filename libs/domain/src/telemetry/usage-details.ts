/**
 * A span's usage by type (`usageDetails`): token counts keyed by usage type, each counted in
 * one type only, so that a cost is the sum over the types of count × price. The named types
 * are `input` (input neither read from nor written to a cache), `output` (output that is not
 * reasoning), `cached_input`, `cache_write` and `reasoning`; any other type a client sends keeps
 * its name. The prompt and completion token counts keep their meaning beside them: the totals
 * as the client sent them.
 */
import { TELEMETRY_RANGES } from '../limits';
import type { JsonObject, JsonValue } from '../json/types';

export const USAGE_TYPES = {
  input: 'input',
  output: 'output',
  cachedInput: 'cached_input',
  cacheWrite: 'cache_write',
  reasoning: 'reasoning',
} as const;

/** A usage type's name as a client may send it: bounded, so a key always fits a price table and an index. */
export const USAGE_TYPE_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;
/** At most this many types per span: every type is priced on ingest. */
export const MAX_USAGE_TYPES = 32;

/** Token counts by usage type. */
export type UsageDetails = Record<string, number>;

/**
 * Names clients give the named types (Langfuse's `usage_details`, OpenAI's and Anthropic's
 * usage fields): each becomes the type it stands for. A total is no type: it is the sum of
 * the others, and is left out.
 */
const USAGE_TYPE_ALIASES: Readonly<Record<string, string | null>> = {
  input: USAGE_TYPES.input,
  prompt: USAGE_TYPES.input,
  input_tokens: USAGE_TYPES.input,
  prompt_tokens: USAGE_TYPES.input,
  output: USAGE_TYPES.output,
  completion: USAGE_TYPES.output,
  output_tokens: USAGE_TYPES.output,
  completion_tokens: USAGE_TYPES.output,
  cached_input: USAGE_TYPES.cachedInput,
  input_cached_tokens: USAGE_TYPES.cachedInput,
  cache_read_input_tokens: USAGE_TYPES.cachedInput,
  input_cache_read: USAGE_TYPES.cachedInput,
  cache_write: USAGE_TYPES.cacheWrite,
  cache_creation_input_tokens: USAGE_TYPES.cacheWrite,
  input_cache_creation: USAGE_TYPES.cacheWrite,
  input_cache_write: USAGE_TYPES.cacheWrite,
  reasoning: USAGE_TYPES.reasoning,
  reasoning_tokens: USAGE_TYPES.reasoning,
  output_reasoning_tokens: USAGE_TYPES.reasoning,
  output_reasoning: USAGE_TYPES.reasoning,
  total: null,
  total_tokens: null,
};

const isCount = (value: JsonValue | undefined): value is number =>
  typeof value === 'number' &&
  Number.isInteger(value) &&
  value >= TELEMETRY_RANGES.spanTokens.min &&
  value <= TELEMETRY_RANGES.spanTokens.max;

/**
 * Usage a client sent by name, its types already apart (Langfuse's `usage_details`, a native
 * `usageDetails`): each known name as its type (the first of a type's names met wins), any
 * other name that fits `USAGE_TYPE_NAME` as sent; totals, counts out of range and other values
 * are left out. Undefined when nothing is left.
 */
export function namedUsage(sent: JsonObject): UsageDetails | undefined {
  const usage: UsageDetails = {};
  let types = 0;
  for (const [name, value] of Object.entries(sent)) {
    if (!isCount(value) || !USAGE_TYPE_NAME.test(name)) continue;
    const lower = name.toLowerCase();
    const type = Object.hasOwn(USAGE_TYPE_ALIASES, lower) ? USAGE_TYPE_ALIASES[lower] : name;
    if (type === null || Object.hasOwn(usage, type) || types === MAX_USAGE_TYPES) continue;
    usage[type] = value;
    types++;
  }
  return types > 0 ? usage : undefined;
}

/** A count some total includes (cache reads in the input, reasoning in the output): its type and which total. */
export interface UsagePart {
  type: string;
  of: 'input' | 'output';
  count: number;
}

/**
 * Usage from totals and the parts they include (OTel GenAI, OpenInference, the AI SDK): each part
 * is taken out of its total, so the types are apart. A total smaller than its parts (a provider
 * whose input leaves cache reads out) leaves 0, never a negative count. Undefined with no count.
 */
export function usageOfTotals(totals: { input?: number; output?: number }, parts: readonly UsagePart[]): UsageDetails | undefined {
  const usage: UsageDetails = {};
  for (const part of parts) usage[part.type] = (usage[part.type] ?? 0) + part.count;
  for (const side of ['input', 'output'] as const) {
    const total = totals[side];
    if (total === undefined) continue;
    const included = parts.reduce((sum, part) => (part.of === side ? sum + part.count : sum), 0);
    usage[side] = Math.max(0, total - included);
  }
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/** The usage types the prompt side counts besides `input` (cache reads and writes are input the provider bills apart). */
const INPUT_SIDE = new Set<string>([USAGE_TYPES.input, USAGE_TYPES.cachedInput, USAGE_TYPES.cacheWrite]);
const OUTPUT_SIDE = new Set<string>([USAGE_TYPES.output, USAGE_TYPES.reasoning]);

/**
 * The prompt and completion token counts of usage by type, for a client that sent the types
 * alone: the named input types and any other whose name says input (`input_audio`) are the
 * prompt, the output types and names saying output the completion. A side with no type is
 * undefined, as a client's missing count is.
 */
export function tokenTotalsOf(usage: UsageDetails): { input?: number; output?: number } {
  const totals: { input?: number; output?: number } = {};
  for (const [type, count] of Object.entries(usage)) {
    const lower = type.toLowerCase();
    const side =
      INPUT_SIDE.has(type) || lower.includes('input') ? 'input' : OUTPUT_SIDE.has(type) || lower.includes('output') ? 'output' : null;
    if (side) totals[side] = (totals[side] ?? 0) + count;
  }
  return totals;
}
