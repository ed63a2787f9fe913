import { validationError } from '../errors';
import { isStorableText } from '../json/sanitize';
import { isJsonObject } from '../json/types';
import { ROUTE_MODEL_LIMITS } from '../limits';
import { type LatencyHistogram, histogramCount, latencyQuantile } from '../model-stats/latency-histogram';
import { Optional, Required, amount, nested, oneOf, text, validateDto } from '../validation';

export const ROUTING_OBJECTIVES = ['cost', 'latency', 'quality', 'balanced'] as const;
export type RoutingObjective = (typeof ROUTING_OBJECTIVES)[number];

/** The score source that stands for "evaluator results" when no scoreName is given (CONTRACT). */
export const EVALUATOR_SCORE_SOURCE = 'EVAL';

class RouteConstraints {
  @Optional(amount) maxCostUsd?: number;
  @Optional({ test: (v) => typeof v === 'number' && Number.isFinite(v) && v > 0, message: 'must be a positive number' })
  maxP95LatencyMs?: number;
  @Optional({ test: (v) => typeof v === 'number' && v >= 0 && v <= 1, message: 'must be a number from 0 to 1' }) minPassRate?: number;
}

/** POST /api/v1/route-model (CONTRACT "Model routing"). */
export class RouteModelRequest {
  @Required({
    test: (v) =>
      Array.isArray(v) &&
      v.length >= 1 &&
      v.length <= ROUTE_MODEL_LIMITS.candidates &&
      v.every((m) => typeof m === 'string' && m.length >= 1 && m.length <= ROUTE_MODEL_LIMITS.modelName && isStorableText(m)) &&
      new Set(v).size === v.length,
    message: `must be 1 to ${ROUTE_MODEL_LIMITS.candidates} distinct model names of 1 to ${ROUTE_MODEL_LIMITS.modelName} characters, without NUL or unpaired surrogates`,
  })
  candidates: string[];
  @Optional(oneOf(ROUTING_OBJECTIVES)) objective?: RoutingObjective;
  @Optional(nested(RouteConstraints)) constraints?: RouteConstraints;
  @Optional(text(1, 256)) scoreName?: string;
  @Optional({
    test: (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= ROUTE_MODEL_LIMITS.windowHours,
    message: `must be a whole number of hours from 1 to ${ROUTE_MODEL_LIMITS.windowHours}`,
  })
  windowHours?: number;
}

export function validateRouteModelRequest(body: unknown): RouteModelRequest {
  if (!isJsonObject(body)) throw validationError('body must be an object');
  const checked = validateDto(RouteModelRequest, body, 'body');
  if (!checked.ok) throw validationError(checked.message);
  return checked.value;
}

/** What the project's own spans and scores say of one model over the window. */
export interface ObservedModel {
  calls: number;
  errors: number;
  latency: LatencyHistogram;
  costedCalls: number;
  costUsd: number;
  promptTokens: number;
  completionTokens: number;
  /** The scores that measure quality (scoreName, else evaluator results), summed. */
  quality: { scores: number; numericScores: number; valueSum: number; judged: number; passed: number };
}

export interface CandidateStats {
  calls: number;
  errorRate: number | null;
  p50LatencyMs: number | null;
  p95LatencyMs: number | null;
  meanCostUsd: number | null;
  promptTokens: number;
  completionTokens: number;
  scores: number;
  meanScore: number | null;
  passRate: number | null;
}

export interface RankedCandidate {
  model: string;
  eligible: boolean;
  /** 1 for the model chosen; null for a model a constraint excluded. */
  rank: number | null;
  stats: CandidateStats;
  /** Why it was excluded, or what it lacks. */
  notes: string[];
}

export interface RoutingDecision {
  model: string | null;
  reason: string;
  candidates: RankedCandidate[];
}

/** A mean of sums, to 12 significant digits: sums of floats carry noise no client should see. */
const ratio = (n: number, d: number): number | null => (d > 0 ? Number((n / d).toPrecision(12)) : null);

export function candidateStats(o: ObservedModel | undefined): CandidateStats {
  if (!o)
    return {
      calls: 0,
      errorRate: null,
      p50LatencyMs: null,
      p95LatencyMs: null,
      meanCostUsd: null,
      promptTokens: 0,
      completionTokens: 0,
      scores: 0,
      meanScore: null,
      passRate: null,
    };
  const round = (v: number | null) => (v === null ? null : Math.round(v));
  return {
    calls: o.calls,
    errorRate: ratio(o.errors, o.calls),
    p50LatencyMs: round(histogramCount(o.latency) ? latencyQuantile(o.latency, 0.5) : null),
    p95LatencyMs: round(histogramCount(o.latency) ? latencyQuantile(o.latency, 0.95) : null),
    meanCostUsd: ratio(o.costUsd, o.costedCalls),
    promptTokens: o.promptTokens,
    completionTokens: o.completionTokens,
    scores: o.quality.scores,
    meanScore: ratio(o.quality.valueSum, o.quality.numericScores),
    passRate: ratio(o.quality.passed, o.quality.judged),
  };
}

const number = (v: number) => Math.round(v).toLocaleString('en-US');
const usd = (v: number) => `$${Number(v.toPrecision(2))}`;
const fraction = (v: number) => `${Number(v.toFixed(2))}`;

/** The constraints a model's stats break, in words; what cannot be checked for lack of data is noted too. */
function checkConstraints(s: CandidateStats, c: RouteConstraints): { excluded: string[]; unknown: string[] } {
  const excluded: string[] = [];
  const unknown: string[] = [];
  if (c.maxCostUsd !== undefined) {
    if (s.meanCostUsd === null) unknown.push('cost unknown');
    else if (s.meanCostUsd > c.maxCostUsd) excluded.push(`${usd(s.meanCostUsd)}/call > maxCostUsd ${usd(c.maxCostUsd)}`);
  }
  if (c.maxP95LatencyMs !== undefined) {
    if (s.p95LatencyMs === null) unknown.push('latency unknown');
    else if (s.p95LatencyMs > c.maxP95LatencyMs)
      excluded.push(`p95 ${number(s.p95LatencyMs)} ms > maxP95LatencyMs ${number(c.maxP95LatencyMs)}`);
  }
  if (c.minPassRate !== undefined) {
    if (s.passRate === null) unknown.push('pass rate unknown');
    else if (s.passRate < c.minPassRate) excluded.push(`pass rate ${fraction(s.passRate)} < minPassRate ${fraction(c.minPassRate)}`);
  }
  return { excluded, unknown };
}

/** Higher is better; null when the model lacks what the objective measures. */
function merit(objective: RoutingObjective, s: CandidateStats, pool: CandidateStats[]): number | null {
  const quality = (x: CandidateStats) => x.meanScore ?? x.passRate;
  switch (objective) {
    case 'cost':
      return s.meanCostUsd === null ? null : -s.meanCostUsd;
    case 'latency':
      return s.p95LatencyMs === null ? null : -s.p95LatencyMs;
    case 'quality':
      return quality(s);
    case 'balanced': {
      // Each measure scaled to 0–1 across the candidates that have it (1 best); a missing one counts as the middle.
      const scaled = (value: (x: CandidateStats) => number | null, higherIsBetter: boolean): number => {
        const v = value(s);
        const all = pool.map(value).filter((x): x is number => x !== null);
        if (v === null || !all.length) return 0.5;
        const [lo, hi] = [Math.min(...all), Math.max(...all)];
        if (hi === lo) return 1;
        const t = (v - lo) / (hi - lo);
        return higherIsBetter ? t : 1 - t;
      };
      return 0.5 * scaled(quality, true) + 0.25 * scaled((x) => x.meanCostUsd, false) + 0.25 * scaled((x) => x.p95LatencyMs, false);
    }
    default: {
      const unknownObjective: never = objective;
      throw new Error(`no merit for ${String(unknownObjective)}`);
    }
  }
}

function describe(model: string, s: CandidateStats, windowHours: number): string {
  const parts = [
    s.p95LatencyMs === null ? null : `p95 ${number(s.p95LatencyMs)} ms`,
    s.meanCostUsd === null ? null : `${usd(s.meanCostUsd)}/call`,
    s.meanScore === null ? null : `mean score ${fraction(s.meanScore)}`,
    s.passRate === null ? null : `pass rate ${fraction(s.passRate)}`,
  ].filter(Boolean);
  return `${model}: ${parts.length ? `${parts.join(', ')} over ` : ''}${number(s.calls)} calls in ${windowHours} h`;
}

/**
 * Ranks the candidates by the project's own observations (CONTRACT "Model routing"): a
 * constraint a model's stats break excludes it; the eligible models with data are ordered by the
 * objective (ties: fewer errors, more calls, then name); models with no data are eligible and
 * ranked last, in the order given. Pure: the stats come in, the decision and its reason go out.
 */
export function routeModel(request: RouteModelRequest, observed: Map<string, ObservedModel>): RoutingDecision {
  const objective = request.objective ?? 'balanced';
  const windowHours = request.windowHours ?? 24;
  const constraints = request.constraints ?? {};
  const all = request.candidates.map((model) => {
    const stats = candidateStats(observed.get(model));
    const { excluded, unknown } = stats.calls ? checkConstraints(stats, constraints) : { excluded: [], unknown: [] };
    return { model, stats, excluded, notes: stats.calls ? [...excluded, ...unknown] : [`no calls in ${windowHours} h`] };
  });
  const withData = all.filter((c) => c.stats.calls > 0 && !c.excluded.length);
  const pool = withData.map((c) => c.stats);
  const ranked = withData
    .map((c) => ({ ...c, merit: merit(objective, c.stats, pool) }))
    .sort(
      (a, b) =>
        (b.merit ?? -Infinity) - (a.merit ?? -Infinity) ||
        (a.stats.errorRate ?? 0) - (b.stats.errorRate ?? 0) ||
        b.stats.calls - a.stats.calls ||
        a.model.localeCompare(b.model),
    );
  const noData = all.filter((c) => c.stats.calls === 0);
  const order = [...ranked, ...noData].map((c) => c.model);
  const candidates: RankedCandidate[] = all.map((c) => ({
    model: c.model,
    eligible: !c.excluded.length,
    rank: c.excluded.length ? null : order.indexOf(c.model) + 1,
    stats: c.stats,
    notes: c.notes,
  }));
  const chosen = order[0] ?? null;
  const excludedText = all.filter((c) => c.excluded.length).map((c) => `${c.model} excluded: ${c.excluded.join(', ')}`);
  const noDataText = noData.filter((c) => c.model !== chosen).map((c) => `${c.model} ranked last: no calls in ${windowHours} h`);
  const head =
    chosen === null
      ? 'no candidate meets the constraints'
      : ranked.length
        ? `${describe(chosen, (all.find((c) => c.model === chosen) as (typeof all)[number]).stats, windowHours)} (best ${objective === 'balanced' ? 'balance of quality, cost and latency' : objective})`
        : `${chosen}: no candidate has calls in ${windowHours} h, so the first one given`;
  return { model: chosen, reason: [head, ...excludedText, ...noDataText].join('; '), candidates };
}
