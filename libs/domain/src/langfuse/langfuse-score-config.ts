import { validationError } from '../errors';
import { type JsonObject, isJsonObject } from '../json/types';
import { SCORE_CONFIG_LIMITS } from '../limits';
import type { ScoreCategory, ScoreConfig } from '../scores/score-config';
import { Optional, decimalInteger, validateDto } from '../validation';
import type { LangfuseErrorBody } from './langfuse-prompt';

/** Langfuse's `ScoreConfig` (`@langfuse/core`), as `GET|POST /api/public/score-configs` answer it. */
export interface LangfuseScoreConfig {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  projectId: string;
  dataType: ScoreConfig['dataType'];
  isArchived: boolean;
  minValue: number | null;
  maxValue: number | null;
  categories?: ScoreCategory[];
  description: string | null;
}

/** Langfuse lists a BOOLEAN config with the two categories it makes for it; we keep none. */
const BOOLEAN_CATEGORIES: ScoreCategory[] = [
  { label: 'True', value: 1 },
  { label: 'False', value: 0 },
];

export function toLangfuseScoreConfig(config: ScoreConfig): LangfuseScoreConfig {
  const categories = config.dataType === 'BOOLEAN' ? BOOLEAN_CATEGORIES : config.dataType === 'CATEGORICAL' ? config.categories : undefined;
  return {
    id: config.id,
    name: config.name,
    createdAt: config.createdAt,
    updatedAt: config.updatedAt,
    projectId: config.projectId,
    dataType: config.dataType,
    isArchived: config.archived,
    minValue: config.minValue,
    maxValue: config.maxValue,
    ...(categories && { categories }),
    description: config.description,
  };
}

/**
 * Langfuse's `CreateScoreConfigRequest` as our config fields: the same names, but a BOOLEAN
 * config's categories are Langfuse's to make (it refuses them too), and TEXT scores Spanlog
 * does not keep.
 */
export function fromLangfuseScoreConfigRequest(body: unknown): unknown {
  if (!isJsonObject(body)) return body;
  if (body.dataType === 'TEXT')
    throw validationError('dataType: TEXT score configs are not supported; use NUMERIC, CATEGORICAL or BOOLEAN');
  if (body.dataType === 'BOOLEAN' && body.categories !== undefined) {
    throw validationError('categories: are made for BOOLEAN configs (True = 1, False = 0) and cannot be passed');
  }
  return body;
}

export class LangfusePageQuery {
  @Optional(decimalInteger({ min: 1, max: 1_000_000 })) page?: number;
  @Optional(decimalInteger(SCORE_CONFIG_LIMITS.page)) limit?: number;
}

/** `?page=&limit=` of `GET /api/public/score-configs`: page from 1, limit 1 to 100 (50 when absent). */
export function parseLangfusePageQuery(query: Record<string, unknown>): { page: number; limit: number } {
  const checked = validateDto(LangfusePageQuery, query as JsonObject, '');
  if (!checked.ok) throw validationError(checked.message);
  return { page: checked.value.page ?? 1, limit: checked.value.limit ?? SCORE_CONFIG_LIMITS.page.default };
}

/** Langfuse's paged list answer: the items and `meta`. */
export const langfusePage = <T>(data: T[], page: number, limit: number, totalItems: number) => ({
  data,
  meta: { page, limit, totalItems, totalPages: Math.ceil(totalItems / limit) },
});

export const langfuseScoreConfigNotFound = (id: string): LangfuseErrorBody => ({
  message: `Score config not found within authorized project: ${id}`,
  error: 'LangfuseNotFoundError',
});
