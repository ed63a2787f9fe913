/**
 * The built-in price table, as data: USD per token for each usage type, from the vendors'
 * public price lists (`source`, the vendor's page; `readOn`, the day the figures were last
 * checked). A price change is a new definition of the same model with a later `startDate`; the
 * older one keeps pricing the spans before it. Patterns take the model name as the vendor's API
 * names it, with its dated snapshots, and a `<vendor>/` prefix as routers write it. Order
 * matters only where patterns overlap: the first model in this list whose pattern matches prices
 * the span (`price-table.ts`).
 *
 * How each was checked (2026-11-27; the vendor pages themselves could not be fetched that day):
 * - Anthropic: against the vendor's page when written (3.x, Sonnet 4, Opus 4/4.1); Sonnet 4.5 and
 *   Haiku 4.5 against simonw/llm-prices (data/anthropic.json, transcribed from that page).
 * - OpenAI, Google, Mistral: every figure against simonw/llm-prices (data/openai.json,
 *   google.json, mistral.json) and at least one dated summary of the vendor page; all agreed. o3 before its 2025-06-10 cut, gpt-3.5-turbo and the
 *   embeddings are in summaries only. Gemini 2.5's cache hits (a tenth of input) were missing
 *   and priced as input: added.
 * - Llama (Groq): not verified; the summaries found disagree with each other.
 *
 * Where a vendor lists no separate price for a type, the type is left out and falls back as
 * `cost.ts` says (reasoning as output, cached input and cache writes as input). Prices that
 * depend on the prompt's length (Gemini 2.5 Pro above 200k tokens) are the shorter tier's.
 */
import type { PriceDefinition } from './price-definition';

const PER_MILLION = 1e-6;
const perMillion = (prices: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(prices).map(([type, usd]) => [type, usd * PER_MILLION]));

const OPENAI = 'https://platform.openai.com/docs/pricing';
const ANTHROPIC = 'https://docs.anthropic.com/en/docs/about-claude/pricing';
const GOOGLE = 'https://ai.google.dev/gemini-api/docs/pricing';
const MISTRAL = 'https://mistral.ai/pricing#api-pricing';
const GROQ = 'https://groq.com/pricing';
const READ_ON = '2026-11-27';
/** Since the model exists: its first known price. */
const ALWAYS = '1970-01-01T00:00:00.000Z';

const openai = (id: string, name: string, prices: Record<string, number>, startDate = ALWAYS): PriceDefinition => ({
  id,
  modelName: name,
  matchPattern: `^(openai/)?${name.replaceAll('.', '\\.')}(-\\d{4}-\\d{2}-\\d{2})?$`,
  startDate,
  prices: perMillion(prices),
  source: OPENAI,
  readOn: READ_ON,
});

/** Anthropic's names: `claude-sonnet-4-5`, its snapshot `claude-sonnet-4-5-20250929`, and `-latest` aliases. */
const anthropic = (name: string, input: number, output: number): PriceDefinition => ({
  id: name,
  modelName: name,
  matchPattern: `^(anthropic/)?${name}(-\\d{8}|-latest)?$`,
  startDate: ALWAYS,
  // 5-minute cache writes are 1.25 times the input price, cache hits a tenth of it.
  prices: perMillion({ input, output, cache_write: input * 1.25, cached_input: input / 10 }),
  source: ANTHROPIC,
  readOn: READ_ON,
});

const google = (name: string, prices: Record<string, number>): PriceDefinition => ({
  id: name,
  modelName: name,
  matchPattern: `^(google/|models/)?${name.replaceAll('.', '\\.')}(-\\d{3}|-latest)?$`,
  startDate: ALWAYS,
  prices: perMillion(prices),
  source: GOOGLE,
  readOn: READ_ON,
});

const mistral = (name: string, pattern: string, input: number, output: number): PriceDefinition => ({
  id: name,
  modelName: name,
  matchPattern: `^(mistral/|mistralai/)?${pattern}$`,
  startDate: ALWAYS,
  prices: perMillion({ input, output }),
  source: MISTRAL,
  readOn: READ_ON,
});

/** Meta publishes no per-token price for Llama; these are Groq's, the host whose model names these are. */
const llama = (name: string, input: number, output: number): PriceDefinition => ({
  id: name,
  modelName: name,
  matchPattern: `^(groq/)?${name.replaceAll('.', '\\.')}$`,
  startDate: ALWAYS,
  prices: perMillion({ input, output }),
  source: GROQ,
  readOn: READ_ON,
});

export const BUILT_IN_PRICES: readonly PriceDefinition[] = [
  openai('gpt-5', 'gpt-5', { input: 1.25, cached_input: 0.125, output: 10 }),
  openai('gpt-5-mini', 'gpt-5-mini', { input: 0.25, cached_input: 0.025, output: 2 }),
  openai('gpt-5-nano', 'gpt-5-nano', { input: 0.05, cached_input: 0.005, output: 0.4 }),
  openai('gpt-4.1', 'gpt-4.1', { input: 2, cached_input: 0.5, output: 8 }),
  openai('gpt-4.1-mini', 'gpt-4.1-mini', { input: 0.4, cached_input: 0.1, output: 1.6 }),
  openai('gpt-4.1-nano', 'gpt-4.1-nano', { input: 0.1, cached_input: 0.025, output: 0.4 }),
  // gpt-4o's first snapshot (2024-05-13) kept its launch price, so it is not matched here.
  {
    ...openai('gpt-4o', 'gpt-4o', { input: 2.5, cached_input: 1.25, output: 10 }),
    matchPattern: '^(openai/)?gpt-4o(-2024-08-06|-2024-11-20)?$',
  },
  openai('gpt-4o-mini', 'gpt-4o-mini', { input: 0.15, cached_input: 0.075, output: 0.6 }),
  openai('o1', 'o1', { input: 15, cached_input: 7.5, output: 60 }),
  openai('o3-mini', 'o3-mini', { input: 1.1, cached_input: 0.55, output: 4.4 }),
  // o3's price fell by 80% on 2025-06-10.
  openai('o3-2025-04', 'o3', { input: 10, cached_input: 2.5, output: 40 }),
  openai('o3-2025-06', 'o3', { input: 2, cached_input: 0.5, output: 8 }, '2025-06-10T00:00:00.000Z'),
  openai('o4-mini', 'o4-mini', { input: 1.1, cached_input: 0.275, output: 4.4 }),
  openai('gpt-3.5-turbo', 'gpt-3.5-turbo', { input: 0.5, output: 1.5 }),
  openai('text-embedding-3-small', 'text-embedding-3-small', { input: 0.02 }),
  openai('text-embedding-3-large', 'text-embedding-3-large', { input: 0.13 }),

  anthropic('claude-opus-4-1', 15, 75),
  anthropic('claude-opus-4', 15, 75),
  anthropic('claude-sonnet-4-5', 3, 15),
  anthropic('claude-sonnet-4', 3, 15),
  anthropic('claude-3-7-sonnet', 3, 15),
  anthropic('claude-3-5-sonnet', 3, 15),
  anthropic('claude-haiku-4-5', 1, 5),
  anthropic('claude-3-5-haiku', 0.8, 4),
  anthropic('claude-3-opus', 15, 75),
  anthropic('claude-3-haiku', 0.25, 1.25),

  google('gemini-2.5-pro', { input: 1.25, cached_input: 0.125, output: 10 }),
  google('gemini-2.5-flash', { input: 0.3, cached_input: 0.03, output: 2.5 }),
  google('gemini-2.5-flash-lite', { input: 0.1, cached_input: 0.01, output: 0.4 }),
  google('gemini-2.0-flash', { input: 0.1, output: 0.4 }),
  google('gemini-2.0-flash-lite', { input: 0.075, output: 0.3 }),

  mistral('mistral-large', 'mistral-large(-latest|-\\d{4})?', 2, 6),
  mistral('mistral-medium', 'mistral-medium(-latest|-\\d{4})?', 0.4, 2),
  mistral('mistral-small', 'mistral-small(-latest|-\\d{4})?', 0.1, 0.3),
  mistral('codestral', 'codestral(-latest|-\\d{4})?', 0.3, 0.9),
  mistral('open-mistral-nemo', 'open-mistral-nemo(-\\d{4})?', 0.15, 0.15),

  llama('llama-3.3-70b-versatile', 0.59, 0.79),
  llama('llama-3.1-8b-instant', 0.05, 0.08),
];
