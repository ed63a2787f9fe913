/**
 * Unpriced usage (issue 28): the models and usage types a project's spans had tokens of that the
 * price table could not price (`unpricedUsage`, set by `priceSpan`), with how many spans and
 * when they were first and last seen. Read from the 5-minute stats, so a range's edges have
 * that resolution: `from` is taken down to its bucket's start, `to` up to the next bucket's.
 */
import { validationError } from '../errors';
import { isJsonObject } from '../json/types';
import { Optional, timestamp, validateDto } from '../validation';

const BUCKET_MS = 300_000;

export class UnpricedQueryFields {
  @Optional(timestamp) from?: string;
  @Optional(timestamp) to?: string;
}

/** The buckets a query reads; null bounds are open. */
export interface UnpricedRange {
  from: Date | null;
  to: Date | null;
}

/** `GET /api/v1/costs/unpriced` / `cost.unpriced`: optional `from` and `to`, ISO 8601, `from` before `to`. */
export function validateUnpricedQuery(input: unknown): UnpricedRange {
  if (!isJsonObject(input)) throw validationError('query must be an object');
  const checked = validateDto(UnpricedQueryFields, input, '');
  if (!checked.ok) throw validationError(checked.message);
  const { from, to } = checked.value;
  const fromMs = from === undefined ? null : Date.parse(from);
  const toMs = to === undefined ? null : Date.parse(to);
  if (fromMs !== null && toMs !== null && toMs <= fromMs) throw validationError('to: must be after from');
  return {
    from: fromMs === null ? null : new Date(Math.floor(fromMs / BUCKET_MS) * BUCKET_MS),
    to: toMs === null ? null : new Date(Math.ceil(toMs / BUCKET_MS) * BUCKET_MS),
  };
}

/** One (model, usage type) of the stats, summed over the range; `modelSpans` counts the model's spans with any unpriced type. */
export interface UnpricedUsageRow {
  model: string;
  usageType: string;
  typeSpans: number;
  modelSpans: number;
  firstSeen: string;
  lastSeen: string;
}

export interface UnpricedUsageType {
  type: string;
  spans: number;
  firstSeen: string;
  lastSeen: string;
}

export interface UnpricedModel {
  /** As the spans name it ('' when a span's model was set apart from its usage). */
  model: string;
  /** Spans of the model with at least one unpriced type (a span with two counts once). */
  spans: number;
  firstSeen: string;
  lastSeen: string;
  usageTypes: UnpricedUsageType[];
}

export interface UnpricedUsage {
  /** The range read, as its buckets bound it; null when open. */
  from: string | null;
  to: string | null;
  /** Latest seen first. */
  models: UnpricedModel[];
}

const later = (a: string, b: string) => (a > b ? a : b);
const earlier = (a: string, b: string) => (a < b ? a : b);

/** The rows per model, the models last seen first and their types by name. */
export function unpricedUsageOf(range: UnpricedRange, rows: UnpricedUsageRow[]): UnpricedUsage {
  const models = new Map<string, UnpricedModel>();
  for (const row of rows) {
    const type = { type: row.usageType, spans: row.typeSpans, firstSeen: row.firstSeen, lastSeen: row.lastSeen };
    const model = models.get(row.model);
    if (!model) {
      models.set(row.model, {
        model: row.model,
        spans: row.modelSpans,
        firstSeen: row.firstSeen,
        lastSeen: row.lastSeen,
        usageTypes: [type],
      });
      continue;
    }
    model.firstSeen = earlier(model.firstSeen, row.firstSeen);
    model.lastSeen = later(model.lastSeen, row.lastSeen);
    model.usageTypes.push(type);
  }
  for (const model of models.values()) model.usageTypes.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  return {
    from: range.from?.toISOString() ?? null,
    to: range.to?.toISOString() ?? null,
    models: [...models.values()].sort((a, b) =>
      a.lastSeen === b.lastSeen ? (a.model < b.model ? -1 : 1) : a.lastSeen > b.lastSeen ? -1 : 1,
    ),
  };
}
