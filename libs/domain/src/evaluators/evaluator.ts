/** What an evaluator scores: each span its filter selects (the default), or each trace once it is complete. */
export const EVALUATOR_TARGETS = ['span', 'trace'] as const;
export type EvaluatorTarget = (typeof EVALUATOR_TARGETS)[number];

/**
 * Which spans or traces an evaluator scores (CONTRACT "Webhook evaluators"). For a span target:
 * span types, span names and the sample. For a trace target (`trace-target.ts`): the trace's
 * name, tags and environment, and the sample per trace; span types do not apply.
 */
export interface EvaluatorFilter {
  /** Span types (upper case); default `['LLM']`. Span targets only. */
  spanTypes: string[];
  /** Span names, or trace names for a trace target; empty = any name. */
  names: string[];
  /** Share of matching spans (or traces) evaluated, 0–1, chosen deterministically per span (or trace). */
  sampleRate: number;
  /** Trace targets: the trace carries at least one of these tags; empty = any. */
  tags: string[];
  /** Trace targets: the trace's environment is one of these; empty = any. */
  environments: string[];
}

/** How an evaluator scores: by calling the team's webhook (SPEC 6.1), or by asking an LLM (issue 29). */
export const EVALUATOR_KINDS = ['webhook', 'llm-judge'] as const;
export type EvaluatorKind = (typeof EVALUATOR_KINDS)[number];

/** How a judge's answer becomes a score: a number from 0 to 1, pass or fail (1/0), or one of `categories`. */
export const JUDGE_SCORE_TYPES = ['numeric', 'boolean', 'categorical'] as const;
export type JudgeScoreType = (typeof JUDGE_SCORE_TYPES)[number];

/** An LLM judge: which connection and model it asks, with which of the project's prompt templates. */
export interface JudgeSettings {
  connectionId: string;
  model: string;
  /** A prompt template of the project; `label` null: the default pick (`production`, else the newest). */
  prompt: { name: string; label: string | null };
  scoreType: JudgeScoreType;
  /** The categories a categorical judge chooses from; empty for the other score types. */
  categories: string[];
}

/** An evaluator's configuration with every default filled in (SPEC 2.6). */
export interface EvaluatorSettings {
  name: string;
  kind: EvaluatorKind;
  /** The webhook's URL; null for a judge, which calls its connection. */
  url: string | null;
  /** A judge's settings; null for a webhook. */
  judge: JudgeSettings | null;
  headers: Record<string, string>;
  timeoutMs: number;
  retries: number;
  filter: EvaluatorFilter;
  enabled: boolean;
  /** Default `span`. */
  target: EvaluatorTarget;
  /** Trace targets: seconds without new data for the trace, after its root span ended, before it is evaluated. */
  quietSeconds: number;
}

export interface Evaluator extends EvaluatorSettings {
  id: string;
  projectId: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * An evaluator as created, or given a new signing secret: the only answers that show the
 * secret (Standard Webhooks' `whsec_…`) its webhook calls are signed with.
 */
export interface EvaluatorWithSecret extends Evaluator {
  signingSecret: string;
}

/**
 * The fields an update changes. `headers` replaces the whole set (merging could never remove
 * one); `filter` changes only the members it names, so one knob can be turned alone.
 */
export type EvaluatorPatch = Partial<Omit<EvaluatorSettings, 'filter'>> & { filter?: Partial<EvaluatorFilter> };

/** A filter as stored, with the members added since it was saved (trace tags and environments) read as "any". */
export const storedFilter = (filter: Omit<EvaluatorFilter, 'tags' | 'environments'> & Partial<EvaluatorFilter>): EvaluatorFilter => ({
  ...filter,
  tags: filter.tags ?? [],
  environments: filter.environments ?? [],
});
