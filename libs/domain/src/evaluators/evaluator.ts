/** Which spans an evaluator scores (CONTRACT "Webhook evaluators"). */
export interface EvaluatorFilter {
  /** Span types (upper case); default `['LLM']`. */
  spanTypes: string[];
  /** Span names; empty = any name. */
  names: string[];
  /** Share of matching spans evaluated, 0–1, chosen deterministically per span. */
  sampleRate: number;
}

/** An evaluator's configuration with every default filled in (SPEC 2.6). */
export interface EvaluatorSettings {
  name: string;
  url: string;
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
