/**
 * One span's attributes (and events) to the field values every convention table finds, by
 * precedence: SPEC 2.2 first, then the current GenAI conventions, then the others in the
 * order of `CONVENTIONS`. Each value keeps where it came from, so that the conversion and
 * `explain` are one computation and cannot disagree.
 */
import { type JsonValue, SPAN_TYPE_PATTERN } from '@app/domain';
import {
  type Convention,
  MAPPED_SPAN_FIELDS,
  MAPPED_TRACE_FIELDS,
  type MappedSpanField,
  type MappedSpanValues,
  type MappedTraceField,
  type MappedTraceValues,
} from './convention';
import { GEN_AI } from './gen-ai';
import { LANGFUSE } from './langfuse';
import { OPENINFERENCE } from './openinference';
import { OPENLLMETRY } from './openllmetry';
import { type Found, type Rule, type SpanView, get, has } from './readers';
import { SPEC } from './spec';
import { VERCEL_AI } from './vercel-ai';

/** Highest precedence first. Among the others the order rarely matters: a span seldom carries two of them. */
export const CONVENTIONS: readonly Convention[] = [SPEC, GEN_AI, OPENINFERENCE, OPENLLMETRY, VERCEL_AI, LANGFUSE];

/** A value found, where, and by which table (or which row of SPEC 2.3). */
export interface Mapped<T extends JsonValue = JsonValue> extends Found<T> {
  rule: string;
}

export interface SpanMapping {
  type: Mapped<string>;
  span: { [F in MappedSpanField]?: Mapped<MappedSpanValues[F]> };
  trace: { [F in MappedTraceField]?: Mapped<MappedTraceValues[F]> };
  /** Values a rule found for a field that a rule of higher precedence had already filled. */
  overridden: (Mapped & { field: string })[];
  /** Span attribute keys that no value in `type`, `span` or `trace` was read from. */
  unused: string[];
}

export const SPAN_TYPE_KEYS = {
  explicit: 'platform.span.type',
  toolName: 'tool.name',
  rpcMethod: 'rpc.method',
  dbSystem: 'db.system',
  dbStatement: 'db.statement',
} as const;

/**
 * SPEC 2.3 rows 1–4, first matching row wins. `platform.span.type` is taken upper-cased when
 * it is one word, the shape native span types have; any other value does not match the row,
 * so a malformed type cannot reach the `type` column. The rows test span attribute keys only:
 * a resource attribute says nothing about one span.
 */
export function specSpanTypeOf({ attributes }: SpanView): Mapped<string> | undefined {
  const explicit = get(attributes, SPAN_TYPE_KEYS.explicit);
  if (typeof explicit === 'string' && SPAN_TYPE_PATTERN.test(explicit.trim().toUpperCase())) {
    return { value: explicit.trim().toUpperCase(), from: [SPAN_TYPE_KEYS.explicit], rule: 'SPEC 2.3 row 1' };
  }
  const llmKey = Object.keys(attributes).find((key) => key.startsWith('gen_ai.') || key.startsWith('llm.'));
  if (llmKey !== undefined) return { value: 'LLM', from: [llmKey], rule: 'SPEC 2.3 row 2' };
  const toolKey = [SPAN_TYPE_KEYS.toolName, SPAN_TYPE_KEYS.rpcMethod].find((key) => has(attributes, key));
  if (toolKey !== undefined) return { value: 'TOOL', from: [toolKey], rule: 'SPEC 2.3 row 3' };
  const dbKey = [SPAN_TYPE_KEYS.dbSystem, SPAN_TYPE_KEYS.dbStatement].find((key) => has(attributes, key));
  if (dbKey !== undefined) return { value: 'RETRIEVAL', from: [dbKey], rule: 'SPEC 2.3 row 4' };
  return undefined;
}

/**
 * A found value with the table that found it, built member by member: a spread
 * (`{ ...found, rule }`) of values of as many shapes as there are readers took V8's slow
 * copying path, more than half of `mapSpan`'s time (issue 25).
 */
const tabled = <T extends JsonValue>(found: Found<T>, rule: string): Mapped<T> => ({ value: found.value, from: found.from, rule });

/** SPEC 2.3's order, with a convention's explicit kind between its rows 1–4 and CUSTOM. */
export function spanTypeOf(span: SpanView): Mapped<string> {
  const spec = specSpanTypeOf(span);
  if (spec) return spec;
  for (const convention of CONVENTIONS) {
    const found = convention.kind?.(span);
    if (found) return tabled(found, `${convention.name} kind`);
  }
  return { value: 'CUSTOM', from: [], rule: 'SPEC 2.3 row 5' };
}

/** One rule of a field's, with the name of the table it belongs to. */
interface TableRule {
  rule: Rule;
  table: string;
  /** Its number among the rules with `keys` (`ASKED_BY_KEY`); -1 for a rule asked on every span. */
  keyed: number;
}

/** The rules with `keys`, numbered in the order the fields' lists are gathered. */
let keyedRules = 0;
/** For each attribute key, the numbers of the keyed rules that read it. */
const ASKED_BY_KEY = new Map<string, number[]>();

const tableRuleOf = (rule: Rule, table: string): TableRule => {
  if (!rule.keys) return { rule, table, keyed: -1 };
  const keyed = keyedRules++;
  for (const key of rule.keys) {
    const asked = ASKED_BY_KEY.get(key);
    if (asked) asked.push(keyed);
    else ASKED_BY_KEY.set(key, [keyed]);
  }
  return { rule, table, keyed };
};

/** A field's rules in precedence order, gathered from the tables once rather than for every span. */
const rulesInOrder = (rulesOf: (c: Convention) => readonly Rule[] | undefined): readonly TableRule[] =>
  CONVENTIONS.flatMap((convention) => (rulesOf(convention) ?? []).map((rule) => tableRuleOf(rule, convention.name)));

const SPAN_FIELD_RULES = MAPPED_SPAN_FIELDS.map((field) => ({
  field,
  label: field,
  rules: rulesInOrder((c) => c.span[field] as readonly Rule[] | undefined),
}));
const TRACE_FIELD_RULES = MAPPED_TRACE_FIELDS.map((field) => ({
  field,
  label: `trace.${field}`,
  rules: rulesInOrder((c) => c.trace[field] as readonly Rule[] | undefined),
}));

/** The keyed rules that may find something on the span, set to 1 by number: those reading one of its attribute keys. */
function askedOn(span: SpanView): Uint8Array {
  const asked = new Uint8Array(keyedRules);
  for (const key of Object.keys(span.attributes)) {
    const rules = ASKED_BY_KEY.get(key);
    if (rules) for (const n of rules) asked[n] = 1;
  }
  return asked;
}

/** Every value the tables find for one field, highest precedence first (`explain`: the losers are listed as overridden). */
function candidatesOf(span: SpanView, rules: readonly TableRule[], asked: Uint8Array): Mapped[] {
  const found: Mapped[] = [];
  for (const { rule, table, keyed } of rules) {
    if (keyed >= 0 && asked[keyed] === 0) continue;
    const value = rule(span);
    if (value) found.push(tabled(value, table));
  }
  return found;
}

/**
 * The first value the tables find for one field, all the conversion keeps. Stopping there
 * skips the lower tables' readers, which parse JSON text again.
 */
function winnerOf(span: SpanView, rules: readonly TableRule[], asked: Uint8Array): Mapped | undefined {
  for (const { rule, table, keyed } of rules) {
    if (keyed >= 0 && asked[keyed] === 0) continue;
    const value = rule(span);
    if (value) return tabled(value, table);
  }
  return undefined;
}

/**
 * How much of the mapping to compute: `explain` fills `overridden` and `unused` too;
 * `winners` (the conversion) leaves them empty. The winners are the same in both, the first
 * value in precedence order, so what is stored and what `explain` shows cannot disagree.
 */
export type MappingDetail = 'explain' | 'winners';

export function mapSpan(span: SpanView, detail: MappingDetail = 'explain'): SpanMapping {
  const mapping: SpanMapping = { type: spanTypeOf(span), span: {}, trace: {}, overridden: [], unused: [] };
  const asked = askedOn(span);
  const keep = (field: string, rules: readonly TableRule[]): Mapped | undefined => {
    if (detail === 'winners') return winnerOf(span, rules, asked);
    const candidates = candidatesOf(span, rules, asked);
    for (let i = 1; i < candidates.length; i++) mapping.overridden.push({ field, ...candidates[i] });
    return candidates[0];
  };
  for (const { field, label, rules } of SPAN_FIELD_RULES) {
    const won = keep(label, rules);
    if (won) (mapping.span as Record<string, Mapped>)[field] = won;
  }
  for (const { field, label, rules } of TRACE_FIELD_RULES) {
    const won = keep(label, rules);
    if (won) (mapping.trace as Record<string, Mapped>)[field] = won;
  }
  if (detail === 'winners') return mapping;
  const used = new Set([mapping.type, ...Object.values(mapping.span), ...Object.values(mapping.trace)].flatMap((m) => m.from));
  mapping.unused = Object.keys(span.attributes).filter((key) => !used.has(key));
  return mapping;
}
