/**
 * A convention's table: for each span and trace field it fills, its rules in the order the
 * convention prefers them, and the span type it states explicitly. `mapSpan` reads the
 * tables in precedence order (`CONVENTIONS`); the first rule that finds a value wins.
 */
import type { JsonObject, JsonValue, UsageDetails } from '@app/domain';
import type { Rule } from './readers';

/** The span fields conventions fill (SPEC 2.2's and the model's parameters). */
export interface MappedSpanValues {
  /** What the span does (`chat`, `execute_tool`…), beside SPEC 2.3's `type`, which it never changes. */
  operation: string;
  model: string;
  modelParameters: JsonObject;
  promptTokens: number;
  completionTokens: number;
  /** Token counts by usage type, each token in one type (the domain's `usage-details.ts`). */
  usageDetails: UsageDetails;
  cost: number;
  input: JsonValue;
  output: JsonValue;
}

/** The trace fields conventions fill. */
export interface MappedTraceValues {
  name: string;
  userId: string;
  sessionId: string;
  environment: string;
  tags: string[];
  metadata: JsonObject;
}

export type MappedSpanField = keyof MappedSpanValues;
export type MappedTraceField = keyof MappedTraceValues;

export const MAPPED_SPAN_FIELDS: readonly MappedSpanField[] = [
  'operation',
  'model',
  'modelParameters',
  'promptTokens',
  'completionTokens',
  'usageDetails',
  'cost',
  'input',
  'output',
];
export const MAPPED_TRACE_FIELDS: readonly MappedTraceField[] = ['name', 'userId', 'sessionId', 'environment', 'tags', 'metadata'];

export interface Convention {
  /** How docs/ingestion.md and `explain` name it. */
  name: string;
  span: { readonly [F in MappedSpanField]?: readonly Rule<MappedSpanValues[F]>[] };
  trace: { readonly [F in MappedTraceField]?: readonly Rule<MappedTraceValues[F]>[] };
  /** The span type the convention states, used after SPEC 2.3 rows 1–4 and before CUSTOM. */
  kind?: Rule<string>;
}

/** A rule from one attribute and its table of values (compared case-insensitively): to span types (`kind`) or to operations. */
export const kindTable =
  (key: string, types: Readonly<Record<string, string>>): Rule<string> =>
  ({ attributes }) => {
    const value = Object.hasOwn(attributes, key) ? attributes[key] : undefined;
    if (typeof value !== 'string') return undefined;
    const lower = value.trim().toLowerCase();
    return Object.hasOwn(types, lower) ? { value: types[lower], from: [key] } : undefined;
  };
