import { validationError } from '../errors';
import { UNSTORABLE_TEXT, isStorableText, sanitizeText } from '../json/sanitize';
import { isJsonObject } from '../json/types';
import { SCORE_CONFIG_LIMITS as LIMITS } from '../limits';
import { SCORE_DATA_TYPES, type ScoreDataType } from '../telemetry/records';
import { ClosedDto, type FieldRule, Optional, oneOf, ruleOf, schemaOf, validateDto } from '../validation';

/** A category of a CATEGORICAL config: a score's value is its label; `value` is the number it stands for. */
export interface ScoreCategory {
  label: string;
  value: number;
}

/** What a score with the config's name must be (issue 30). */
export interface ScoreConfigSettings {
  name: string;
  dataType: ScoreDataType;
  /** NUMERIC only; null is unbounded. */
  minValue: number | null;
  maxValue: number | null;
  /** CATEGORICAL only (at least one); empty otherwise. */
  categories: ScoreCategory[];
  description: string | null;
}

export interface ScoreConfig extends ScoreConfigSettings {
  id: string;
  projectId: string;
  archived: boolean;
  createdAt: string;
  updatedAt: string;
}

export type ScoreConfigPatch = Partial<Omit<ScoreConfigSettings, 'dataType'>>;

const NAME_RULE = `must be a non-blank string of at most ${LIMITS.nameLength} characters`;
const name: FieldRule = {
  read: (v) => (typeof v === 'string' ? v.trim() : v),
  ...ruleOf(
    (v) => {
      if (typeof v !== 'string' || !v || v.length > LIMITS.nameLength) return NAME_RULE;
      return isStorableText(v) ? null : UNSTORABLE_TEXT;
    },
    { type: 'string', minLength: 1, maxLength: LIMITS.nameLength },
  ),
};

const description = ruleOf(
  (v) => {
    if (typeof v !== 'string' || v.length > LIMITS.descriptionLength)
      return `must be a string of at most ${LIMITS.descriptionLength} characters, or null`;
    return isStorableText(v) ? null : UNSTORABLE_TEXT;
  },
  { type: ['string', 'null'], maxLength: LIMITS.descriptionLength },
);

const bound: FieldRule = {
  test: (v) => typeof v === 'number' && Number.isFinite(v),
  message: 'must be a number or null',
  schema: { type: ['number', 'null'] },
};

const CATEGORY_RULE = `must be an object with a label (1 to ${LIMITS.categoryLabelLength} characters) and a numeric value`;
const categories = ruleOf(
  (v) => {
    if (!Array.isArray(v) || v.length > LIMITS.categories) return `must be an array of at most ${LIMITS.categories} categories`;
    const labels = new Set<string>();
    const values = new Set<number>();
    for (let i = 0; i < v.length; i++) {
      const c: unknown = v[i];
      if (!isJsonObject(c)) return { path: `[${i}]`, message: CATEGORY_RULE };
      const { label, value } = c;
      if (typeof label !== 'string' || !label.trim() || label.length > LIMITS.categoryLabelLength || !isStorableText(label))
        return { path: `[${i}].label`, message: `must be a non-blank string of at most ${LIMITS.categoryLabelLength} characters` };
      if (typeof value !== 'number' || !Number.isFinite(value)) return { path: `[${i}].value`, message: 'must be a number' };
      const unknownKey = Object.keys(c).find((k) => k !== 'label' && k !== 'value');
      if (unknownKey) return { path: `[${i}].${unknownKey}`, message: 'is not a field of a category (label, value)' };
      if (labels.has(label)) return { path: `[${i}].label`, message: `"${label}" is given twice` };
      if (values.has(value)) return { path: `[${i}].value`, message: `${value} is given twice` };
      labels.add(label);
      values.add(value);
    }
    return null;
  },
  { type: 'array', maxItems: LIMITS.categories, items: { type: 'object' } },
);

@ClosedDto()
export class ScoreConfigFields {
  @Optional(name) name?: string;
  @Optional(oneOf(SCORE_DATA_TYPES)) dataType?: ScoreDataType;
  @Optional(bound) minValue?: number | null;
  @Optional(bound) maxValue?: number | null;
  @Optional(categories) categories?: ScoreCategory[];
  @Optional(description) description?: string | null;
}

const FIELDS = Object.keys(schemaOf(ScoreConfigFields).properties ?? {});
const invalid = (path: string, message: string) => validationError(`${path}: ${message}`);

/** The fields given; a bound or description given as null (cleared) reads as null. */
function readFields(input: unknown): ScoreConfigFields {
  if (!isJsonObject(input)) throw validationError(`must be an object with ${FIELDS.join(', ')}`);
  const checked = validateDto(ScoreConfigFields, input, '');
  if (!checked.ok) throw validationError(checked.message);
  const fields = checked.value;
  for (const key of CLEARABLE) if (Object.hasOwn(input, key) && input[key] === null) fields[key] = null;
  return fields;
}

const CLEARABLE = ['minValue', 'maxValue', 'description'] as const;

/** The rules that tie the fields together, on the config as it will be stored. */
function checkWhole(settings: ScoreConfigSettings): ScoreConfigSettings {
  const { dataType, minValue, maxValue, categories: list } = settings;
  if (dataType !== 'NUMERIC' && (minValue !== null || maxValue !== null)) {
    throw invalid(minValue !== null ? 'minValue' : 'maxValue', `applies to NUMERIC configs only; this one is ${dataType}`);
  }
  if (minValue !== null && maxValue !== null && minValue > maxValue) throw invalid('minValue', `must not be above maxValue (${maxValue})`);
  if (dataType === 'CATEGORICAL' && !list.length) throw invalid('categories', 'must hold at least one category for a CATEGORICAL config');
  if (dataType !== 'CATEGORICAL' && list.length) throw invalid('categories', `apply to CATEGORICAL configs only; this one is ${dataType}`);
  return settings;
}

/**
 * A new score config from a client: every field checked (the one place of their rules), the
 * name trimmed. Throws a validation error naming the field (`categories[1].label: …`).
 */
export function validateScoreConfigInput(input: unknown): ScoreConfigSettings {
  const fields = readFields(input);
  if (fields.name === undefined) throw invalid('name', 'is required');
  if (fields.dataType === undefined) throw invalid('dataType', `is required: one of ${SCORE_DATA_TYPES.join(', ')}`);
  return checkWhole({
    name: fields.name,
    dataType: fields.dataType,
    minValue: fields.minValue ?? null,
    maxValue: fields.maxValue ?? null,
    categories: fields.categories ?? [],
    description: fields.description ?? null,
  });
}

/**
 * A change of `current`: the fields given, checked alone and then as the whole config they make.
 * The data type cannot change: the scores already given under the name were checked against it.
 */
export function validateScoreConfigPatch(current: ScoreConfigSettings, input: unknown): ScoreConfigSettings {
  const fields = readFields(input);
  if (fields.dataType !== undefined && fields.dataType !== current.dataType) {
    throw invalid('dataType', `cannot change (${current.dataType}): the scores given under this name were checked against it`);
  }
  const given = Object.entries(fields).filter(([, v]) => v !== undefined);
  if (!given.length) throw validationError(`nothing to change: give at least one of ${FIELDS.filter((f) => f !== 'dataType').join(', ')}`);
  return checkWhole({ ...current, ...Object.fromEntries(given) });
}

/** The value and data type of a score, as every source states them. */
export interface ScoreToCheck {
  value: number | string | boolean;
  dataType?: ScoreDataType;
}

/** A refusal of a score by its config: the field at fault (`value`, `dataType`) and why. */
export interface ScoreConfigRefusal {
  field: 'value' | 'dataType';
  message: string;
}

const typeOfValue = (value: ScoreToCheck['value']): ScoreDataType =>
  typeof value === 'number' ? 'NUMERIC' : typeof value === 'boolean' ? 'BOOLEAN' : 'CATEGORICAL';

/**
 * Whether a score fits the config of its name (issue 30); null when it does. A BOOLEAN config
 * takes true/false and, as Langfuse sends them, 1/0; a CATEGORICAL one takes a category's label.
 */
export function scoreConfigRefusal(
  score: ScoreToCheck,
  config: Pick<ScoreConfigSettings, 'name' | 'dataType' | 'minValue' | 'maxValue' | 'categories'>,
): ScoreConfigRefusal | null {
  const of = `the score config "${config.name}"`;
  const stated = score.dataType ?? typeOfValue(score.value);
  const { value } = score;
  switch (config.dataType) {
    case 'NUMERIC':
      if (stated !== 'NUMERIC' || typeof value !== 'number')
        return { field: 'dataType', message: `must be NUMERIC (a number) for ${of}; got ${stated}` };
      if (config.minValue !== null && value < config.minValue)
        return { field: 'value', message: `must be at least ${config.minValue} for ${of}; got ${value}` };
      if (config.maxValue !== null && value > config.maxValue)
        return { field: 'value', message: `must be at most ${config.maxValue} for ${of}; got ${value}` };
      return null;
    case 'BOOLEAN':
      if (typeof value === 'boolean') return null;
      if (typeof value === 'number' && stated !== 'CATEGORICAL') {
        return value === 0 || value === 1 ? null : { field: 'value', message: `must be true or false (or 1 or 0) for ${of}; got ${value}` };
      }
      return { field: 'dataType', message: `must be BOOLEAN (true or false) for ${of}; got ${stated}` };
    case 'CATEGORICAL': {
      if (typeof value !== 'string')
        return { field: 'dataType', message: `must be CATEGORICAL (a category's label) for ${of}; got ${stated}` };
      if (config.categories.some((c) => c.label === value)) return null;
      const labels = config.categories.map((c) => JSON.stringify(c.label)).join(', ');
      return { field: 'value', message: `must be one of the categories of ${of} (${labels}); got ${JSON.stringify(value)}` };
    }
  }
}

/** The configs in force for the names of some scores, by name: what `scoreConfigRefusal` checks against. */
export type ScoreConfigsByName = ReadonlyMap<string, Pick<ScoreConfig, 'name' | 'dataType' | 'minValue' | 'maxValue' | 'categories'>>;

/** The refusal of a score at `path` (`scores[2]`, `batch[0].body`) by the config of its name, as a validation message; null when it fits or has no config. */
export function scoreConfigProblem(score: ScoreToCheck & { name: string }, configs: ScoreConfigsByName, path: string): string | null {
  const config = configs.get(configNameOf(score.name));
  const refusal = config ? scoreConfigRefusal(score, config) : null;
  return refusal ? `${path ? `${path}.` : ''}${refusal.field}: ${refusal.message}` : null;
}

/**
 * The config name a score's name falls under: the name as the score is stored, NUL removed and
 * unpaired surrogates replaced (BAD_INPUTS 5). Config names are refused with either, so a name
 * is looked up (and matched) as stored, and never reaches a query as bytes Postgres refuses.
 */
export const configNameOf = (scoreName: string): string => sanitizeText(scoreName);

/** Throws the validation error of the first score at fault. */
export function assertScoresFitConfigs(
  scores: { score: ScoreToCheck & { name: string }; path: string }[],
  configs: ScoreConfigsByName,
): void {
  for (const { score, path } of scores) {
    const problem = scoreConfigProblem(score, configs, path);
    if (problem) throw validationError(problem);
  }
}

/**
 * An evaluator's score (named after the evaluator: a webhook's NUMERIC, a judge's NUMERIC or
 * CATEGORICAL) checked against the config of that name: null when it may be written, or why it
 * is not, for its run's error.
 */
export function evaluatorScoreRefusal(
  evaluatorName: string,
  score: { value: number | string; dataType: ScoreDataType },
  configs: ScoreConfigsByName,
): string | null {
  const problem = scoreConfigProblem({ name: evaluatorName, value: score.value, dataType: score.dataType }, configs, '');
  return problem && `score not written, its config refuses it: ${problem}`;
}
