/**
 * A project's own price definitions (issue 28): what a team sets where the built-in table is
 * wrong, missing or newer than its contract. The fields are the built-in ones (`PriceDefinition`)
 * plus Langfuse's `unit`, which is TOKENS, the only unit usage is counted in. A pattern may start
 * with Langfuse's `(?i)`: matching is case-insensitive anyway, so it is dropped. Two definitions
 * of a project with the same pattern and start date would price the same spans at once: refused.
 */
import { type JsonObject, isJsonObject } from '../json/types';
import { validationError } from '../errors';
import {
  Optional,
  Required,
  type FieldRefusal,
  integer,
  oneOf,
  refusalsOf,
  ruleOf,
  storedText,
  timestamp,
  toDto,
  bool,
} from '../validation';
import { MAX_PATTERN_LENGTH, patternProblem } from './bounded-pattern';
import { type PriceDefinition, type Prices, pricesRule } from './price-definition';
import { type PriceTier, TIER_OPERATORS, type TierCondition, type TierOperator } from './price-tiers';

export const MODEL_UNITS = ['TOKENS'] as const;
export type ModelUnit = (typeof MODEL_UNITS)[number];
/** A definition without a start date prices every span before the next one of its model. */
export const SINCE_ALWAYS = '1970-01-01T00:00:00.000Z';
/** Langfuse's case-insensitivity flag, accepted in front of a pattern. */
const CASE_INSENSITIVE_FLAG = '(?i)';
export const MAX_TIERS = 10;
export const MAX_TIER_CONDITIONS = 10;

export interface ModelDefinition extends PriceDefinition {
  projectId: string;
  unit: ModelUnit;
  createdAt: string;
  updatedAt: string;
}

/** The fields a client sets. */
export type ModelDefinitionFields = Pick<ModelDefinition, 'modelName' | 'matchPattern' | 'startDate' | 'unit' | 'prices'> & {
  tiers: PriceTier[];
};

const matchPattern = {
  ...ruleOf((value) => (typeof value === 'string' ? patternProblem(value) : 'must be a string'), {
    type: 'string',
    maxLength: MAX_PATTERN_LENGTH + CASE_INSENSITIVE_FLAG.length,
  }),
  read: (value: unknown) =>
    typeof value === 'string' && value.startsWith(CASE_INSENSITIVE_FLAG) ? value.slice(CASE_INSENSITIVE_FLAG.length) : value,
};

const usageDetailPattern = ruleOf(
  (value) => (typeof value === 'string' ? patternProblem(value, { anchored: false }) : 'must be a string'),
  {
    type: 'string',
    maxLength: MAX_PATTERN_LENGTH,
  },
);

class TierConditionInput {
  @Required(usageDetailPattern) usageDetailPattern: string;
  @Required(oneOf(TIER_OPERATORS)) operator: TierOperator;
  @Required({ test: (v) => typeof v === 'number' && Number.isFinite(v), message: 'must be a number', schema: { type: 'number' } })
  value: number;
  @Optional(bool) caseSensitive?: boolean;
}

/** Each item of a list checked as a DTO of `cls`, the first fault named with its index (`[1].prices.input`). */
function eachAs(
  cls: Function & { prototype: object },
  items: unknown[],
  more?: (item: never, i: number) => FieldRefusal | null,
): FieldRefusal | null {
  for (const [i, item] of items.entries()) {
    if (!isJsonObject(item)) return { path: `[${i}]`, message: 'must be an object' };
    const [first] = refusalsOf(cls, toDto(cls, item as JsonObject), 1);
    if (first) return { path: `[${i}].${first.path}`, message: first.message };
    const problem = more?.(item as never, i);
    if (problem) return problem;
  }
  return null;
}

const conditions = ruleOf(
  (value) => {
    if (!Array.isArray(value) || value.length === 0 || value.length > MAX_TIER_CONDITIONS)
      return `must be an array of 1 to ${MAX_TIER_CONDITIONS} usage conditions`;
    return eachAs(TierConditionInput, value);
  },
  { type: 'array', minItems: 1, maxItems: MAX_TIER_CONDITIONS },
);

class PriceTierInput {
  @Required(storedText(1, 200)) name: string;
  @Required(integer({ min: 1, max: 1000 })) priority: number;
  @Required(conditions) conditions: TierCondition[];
  @Required(pricesRule) prices: Prices;
}

const tiers = ruleOf(
  (value) => {
    if (!Array.isArray(value) || value.length > MAX_TIERS) return `must be an array of at most ${MAX_TIERS} conditional tiers`;
    return eachAs(PriceTierInput, value, (tier: { priority: number; name: string }, i) =>
      value.slice(0, i).some((t: { priority: number; name: string }) => t.priority === tier.priority || t.name === tier.name)
        ? { path: `[${i}]`, message: 'must have a name and a priority no other tier has' }
        : null,
    );
  },
  { type: 'array', maxItems: MAX_TIERS },
);

export class ModelDefinitionInput {
  @Required(storedText(1, 200)) modelName: string;
  @Required(matchPattern) matchPattern: string;
  @Optional(timestamp) startDate?: string;
  @Optional(oneOf(MODEL_UNITS)) unit?: ModelUnit;
  @Required(pricesRule) prices: Prices;
  @Optional(tiers) tiers?: PriceTier[];
}

/** Langfuse's `/api/public/models/{id}`: an id that could be stored (a built-in's or a project's), or a 400 naming it. */
export class ModelPath {
  @Required(storedText(1, 200)) id: string;
}

/** A definition as a client sent it, checked field by field; throws `validationError` naming the first fault. */
export function validateModelDefinition(plain: unknown): ModelDefinitionFields {
  if (!isJsonObject(plain)) throw validationError('definition: must be an object');
  const dto = toDto(ModelDefinitionInput, plain);
  const [first] = refusalsOf(ModelDefinitionInput, dto, 1);
  if (first) throw validationError(`${first.path}: ${first.message}`);
  return {
    modelName: dto.modelName,
    matchPattern: dto.matchPattern,
    startDate: dto.startDate ?? SINCE_ALWAYS,
    unit: dto.unit ?? 'TOKENS',
    prices: { ...dto.prices },
    tiers: (dto.tiers ?? [])
      .map((t) => ({
        name: t.name,
        priority: t.priority,
        conditions: t.conditions.map((c) => ({
          usageDetailPattern: c.usageDetailPattern,
          operator: c.operator,
          value: c.value,
          caseSensitive: c.caseSensitive ?? false,
        })),
        prices: { ...t.prices },
      }))
      .sort((a, b) => a.priority - b.priority),
  };
}

/**
 * Refuses a definition that would price the same spans as another of the project: same
 * pattern (as stored) and the same start date. `except` is the definition being changed.
 */
export function refuseOverlap(
  fields: Pick<ModelDefinition, 'matchPattern' | 'startDate'>,
  others: readonly ModelDefinition[],
  except?: string,
): void {
  const same = others.find(
    (o) => o.id !== except && o.matchPattern === fields.matchPattern && Date.parse(o.startDate) === Date.parse(fields.startDate),
  );
  if (same)
    throw validationError(
      `startDate: definition ${same.id} (${same.modelName}) has the same matchPattern and startDate; change that one or pick another date`,
    );
}
