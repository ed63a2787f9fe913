/**
 * A model's prices from a date on: which model names it applies to (`matchPattern`, anchored and
 * matched case-insensitively), from when (`startDate`), and a price in USD per token for each
 * usage type (`input`, `output`, `cached_input`, `cache_write`, `reasoning`, or any type a
 * client names). Built-in definitions are data (`built-in-prices.ts`); each names where its
 * prices were read and when.
 */
import { TELEMETRY_RANGES } from '../limits';
import { type JsonObject, isJsonObject } from '../json/types';
import { USAGE_TYPE_NAME, MAX_USAGE_TYPES } from '../telemetry/usage-details';
import { Optional, Required, ruleOf, text, timestamp, validateDto } from '../validation';
import { validationError } from '../errors';
import { MAX_PATTERN_LENGTH, patternProblem } from './bounded-pattern';
import type { PriceTier } from './price-tiers';

/** USD per token, by usage type. */
export type Prices = Record<string, number>;

export interface PriceDefinition {
  /** Unique in its table; a span priced by it records `price:<id>`. */
  id: string;
  /** The model the definition prices; definitions of one model differ by `startDate`. */
  modelName: string;
  matchPattern: string;
  /** ISO 8601: the definition prices spans that start at or after it, until a later one of the same model. */
  startDate: string;
  prices: Prices;
  /** Conditional prices, in the order they are tried (`price-tiers.ts`); `prices` applies when none does. */
  tiers?: PriceTier[];
  /** Where the prices were read, and on which day. */
  source?: string;
  readOn?: string;
}

const pattern = ruleOf((value) => (typeof value === 'string' ? patternProblem(value) : 'must be a string'), {
  type: 'string',
  maxLength: MAX_PATTERN_LENGTH,
});

export const pricesRule = ruleOf(
  (value) => {
    if (!isJsonObject(value)) return 'must be an object';
    const entries = Object.entries(value);
    if (entries.length === 0 || entries.length > MAX_USAGE_TYPES) return `must name 1 to ${MAX_USAGE_TYPES} usage types`;
    const bad = entries.find(
      ([type, price]) => !USAGE_TYPE_NAME.test(type) || typeof price !== 'number' || !(price >= 0) || price > TELEMETRY_RANGES.spanCost.max,
    );
    return bad === undefined
      ? null
      : { path: `.${bad[0]}`, message: `must be a price per token from 0 to ${TELEMETRY_RANGES.spanCost.max}` };
  },
  {
    type: 'object',
    maxProperties: MAX_USAGE_TYPES,
    additionalProperties: { type: 'number', minimum: 0, maximum: TELEMETRY_RANGES.spanCost.max },
  },
);

export class PriceDefinitionInput {
  @Required(text(1, 200)) id: string;
  @Required(text(1, 200)) modelName: string;
  @Required(pattern) matchPattern: string;
  @Required(timestamp) startDate: string;
  @Required(pricesRule) prices: Prices;
  @Optional(text(1, 2000)) source?: string;
  @Optional(text(10, 10)) readOn?: string;
}

/** One definition as sent, checked field by field (`prices.input: must be …`); throws `validationError` naming the first fault. */
export function validatePriceDefinition(plain: unknown, path = ''): PriceDefinition {
  if (!isJsonObject(plain)) throw validationError(`${path || 'definition'}: must be an object`);
  const check = validateDto(PriceDefinitionInput, plain as JsonObject, path);
  if (!check.ok) throw validationError(check.message);
  return { ...check.value };
}
