/** The model form's fields as `model.create|update` take them, and how a definition reads in it. Pure. */
import type { ModelFields } from '../data/models';

export interface ModelFormValues {
  modelName: string;
  matchPattern: string;
  startDate: string;
  /** One `type = USD per million tokens` a line. */
  prices: string;
}

const PER_MILLION = 1e6;

/** Prices per million tokens as the form shows them, one type a line. */
export const pricesText = (prices: Record<string, number>): string =>
  Object.entries(prices)
    .map(([type, usd]) => `${type} = ${+(usd * PER_MILLION).toPrecision(12)}`)
    .join('\n');

/**
 * The lines as prices per token. A line that does not read as `type = number` is kept as its
 * text under its type (the server then names `prices.<type>`), so nothing typed is dropped.
 */
export function toModelInput(values: ModelFormValues): ModelFields {
  const prices: Record<string, number> = {};
  for (const line of values.prices.split('\n')) {
    if (!line.trim()) continue;
    const [type, usd = ''] = line.split('=').map((s) => s.trim());
    prices[type] = usd === '' || Number.isNaN(Number(usd)) ? (usd as unknown as number) : Number(usd) / PER_MILLION;
  }
  return {
    modelName: values.modelName.trim(),
    matchPattern: values.matchPattern.trim(),
    ...(values.startDate.trim() ? { startDate: values.startDate.trim() } : {}),
    prices,
  };
}
