/**
 * Langfuse's public models API (`api.models` of `@langfuse/client`) over Spanlog's price
 * definitions: a request's flat prices or pricing tiers become a definition's prices and
 * conditional tiers, and a definition is answered in Langfuse's `Model` shape. What Spanlog cannot
 * honour is refused by name rather than stored and ignored: a unit other than TOKENS, a tier
 * condition on model parameters or metadata (only usage thresholds price a span here), a
 * tokenizer (Spanlog counts no tokens itself). `totalPrice` prices every input and output token
 * alike, which is what a price per total token means; it is answered as equal input and output
 * prices.
 */
import { isJsonObject, type JsonObject } from '../json/types';
import { validationError } from '../errors';
import { Optional, Required, anyText, decimalInteger, listOf, jsonObject, ruleOf, storedText, toDto, refusalsOf } from '../validation';
import type { ModelDefinition } from '../pricing/model-definition';
import { SINCE_ALWAYS } from '../pricing/model-definition';
import type { PriceDefinition } from '../pricing/price-definition';
import type { PriceTier } from '../pricing/price-tiers';
import { TELEMETRY_RANGES } from '../limits';

const price = ruleOf(
  (v) =>
    typeof v === 'number' && v >= 0 && v <= TELEMETRY_RANGES.spanCost.max
      ? null
      : `must be a price per token from 0 to ${TELEMETRY_RANGES.spanCost.max}`,
  { type: 'number', minimum: 0, maximum: TELEMETRY_RANGES.spanCost.max },
);

export class LangfuseModelInput {
  @Required(storedText(1, 200)) modelName: string;
  @Required(anyText) matchPattern: string;
  @Optional(anyText) startDate?: string;
  @Required(anyText) unit: string;
  @Optional(price) inputPrice?: number;
  @Optional(price) outputPrice?: number;
  @Optional(price) totalPrice?: number;
  @Optional(listOf(jsonObject, 11)) pricingTiers?: JsonObject[];
  @Optional(anyText) tokenizerId?: string;
}

/** `GET /api/public/models` query: Langfuse's page (from 1) and limit. */
export class LangfuseModelsPage {
  @Optional(decimalInteger({ min: 1, max: 1_000_000 })) page?: number;
  @Optional(decimalInteger({ min: 1, max: 100 })) limit?: number;
}

/** A `CreateModelRequest` as the fields `validateModelDefinition` checks; refuses what has no equivalent, naming the field. */
export function fromLangfuseModel(plain: unknown): JsonObject {
  if (!isJsonObject(plain)) throw validationError('body: must be an object');
  const dto = toDto(LangfuseModelInput, plain);
  const [first] = refusalsOf(LangfuseModelInput, dto, 1);
  if (first) throw validationError(`${first.path}: ${first.message}`);
  if (dto.tokenizerId !== undefined) throw validationError('tokenizerId: Spanlog counts no tokens itself; leave it out');
  const flat = dto.inputPrice !== undefined || dto.outputPrice !== undefined || dto.totalPrice !== undefined;
  const fields: JsonObject = { modelName: dto.modelName, matchPattern: dto.matchPattern, unit: dto.unit };
  if (dto.startDate !== undefined) fields.startDate = dto.startDate;
  if (dto.pricingTiers !== undefined) {
    if (flat) throw validationError('pricingTiers: cannot be sent with inputPrice, outputPrice or totalPrice');
    return { ...fields, ...fromPricingTiers(dto.pricingTiers) };
  }
  if (dto.totalPrice !== undefined) {
    if (dto.inputPrice !== undefined || dto.outputPrice !== undefined)
      throw validationError('totalPrice: cannot be set with inputPrice or outputPrice');
    return { ...fields, prices: { input: dto.totalPrice, output: dto.totalPrice } };
  }
  if (!flat) throw validationError('inputPrice: one of inputPrice, outputPrice, totalPrice or pricingTiers is required');
  const prices: JsonObject = {};
  if (dto.inputPrice !== undefined) prices.input = dto.inputPrice;
  if (dto.outputPrice !== undefined) prices.output = dto.outputPrice;
  return { ...fields, prices };
}

/** The default tier's prices, and the others as conditional tiers; each condition must be a usage threshold. */
function fromPricingTiers(tiers: JsonObject[]): JsonObject {
  const defaults = tiers.filter((t) => t.isDefault === true);
  if (defaults.length !== 1)
    throw validationError('pricingTiers: must hold exactly one default tier (isDefault true, priority 0, no conditions)');
  const [base] = defaults;
  if (base.priority !== 0 || (Array.isArray(base.conditions) && base.conditions.length > 0))
    throw validationError(`pricingTiers[${tiers.indexOf(base)}]: the default tier has priority 0 and no conditions`);
  const conditional = tiers.filter((t) => t !== base);
  for (const [i, tier] of tiers.entries()) {
    const conditions = Array.isArray(tier.conditions) ? tier.conditions : [];
    const j = conditions.findIndex((c) => !isJsonObject(c) || c.usageDetailPattern === undefined);
    if (j >= 0)
      throw validationError(
        `pricingTiers[${i}].conditions[${j}]: only usage thresholds (usageDetailPattern, operator, value) price a span in Spanlog`,
      );
  }
  return {
    prices: base.prices ?? null,
    tiers: conditional.map((t) => ({
      name: t.name ?? null,
      priority: t.priority ?? null,
      conditions: t.conditions ?? null,
      prices: t.prices ?? null,
    })),
  };
}

/** Langfuse's `Model`, as `api.models` reads it. */
export interface LangfuseModel {
  id: string;
  modelName: string;
  matchPattern: string;
  startDate: string | null;
  unit: 'TOKENS';
  inputPrice: number | null;
  outputPrice: number | null;
  totalPrice: number | null;
  tokenizerId: null;
  tokenizerConfig: null;
  isLangfuseManaged: boolean;
  createdAt: string;
  prices: Record<string, { price: number }>;
  pricingTiers: {
    id: string;
    name: string;
    isDefault: boolean;
    priority: number;
    conditions: { usageDetailPattern: string; operator: string; value: number; caseSensitive: boolean }[];
    prices: Record<string, number>;
  }[];
}

/** A project definition, or a built-in one (`isLangfuseManaged`), in Langfuse's shape; the pattern carries `(?i)`, as Langfuse's do. */
export function toLangfuseModel(definition: ModelDefinition | PriceDefinition): LangfuseModel {
  const own = 'projectId' in definition;
  const tiers: PriceTier[] = definition.tiers ?? [];
  return {
    id: definition.id,
    modelName: definition.modelName,
    matchPattern: `(?i)${definition.matchPattern}`,
    startDate: definition.startDate === SINCE_ALWAYS ? null : definition.startDate,
    unit: 'TOKENS',
    inputPrice: definition.prices.input ?? null,
    outputPrice: definition.prices.output ?? null,
    totalPrice: null,
    tokenizerId: null,
    tokenizerConfig: null,
    isLangfuseManaged: !own,
    createdAt: own ? definition.createdAt : `${definition.readOn ?? '1970-01-01'}T00:00:00.000Z`,
    prices: Object.fromEntries(Object.entries(definition.prices).map(([type, p]) => [type, { price: p }])),
    pricingTiers: [
      { id: `${definition.id}:default`, name: 'Standard', isDefault: true, priority: 0, conditions: [], prices: definition.prices },
      ...tiers.map((t) => ({
        id: `${definition.id}:${t.priority}`,
        name: t.name,
        isDefault: false,
        priority: t.priority,
        conditions: t.conditions,
        prices: t.prices,
      })),
    ],
  };
}
