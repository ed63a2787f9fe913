/** Which spans an evaluator scores (CONTRACT "Webhook evaluators"). */
export interface EvaluatorFilter {
  /** Span types (upper case); default `['LLM']`. */
  spanTypes: string[];
  /** Span names; empty = any name. */
  names: string[];
  /** Share of matching spans evaluated, 0–1, chosen deterministically per span. */
  sampleRate: number;
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
