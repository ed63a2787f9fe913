import type { JsonObject } from '../json/types';

/** One message of a chat template. */
export interface ChatMessage {
  role: string;
  content: string;
}

/** A text template, or a chat template as its messages. */
export type PromptTemplateBody = string | ChatMessage[];

/** What one push (POST /api/v1/prompt-templates) asks to store, checked. */
export interface PromptVersionInput {
  name: string;
  template: PromptTemplateBody;
  /** Sorted, without duplicates, never `latest`. */
  labels: string[];
  config: JsonObject;
  commitMessage: string | null;
}

/** A stored version as the API answers it (CONTRACT "Prompt templates"). */
export interface PromptVersion {
  name: string;
  version: number;
  template: PromptTemplateBody;
  /** The labels on this version, sorted. */
  labels: string[];
  config: JsonObject;
  commitMessage: string | null;
  createdAt: string;
}

/** One name in the list: its newest version, and every label that resolves to one of its versions. */
export interface PromptTemplateSummary {
  name: string;
  latestVersion: number;
  labels: string[];
  updatedAt: string;
}

/** Always the newest version of a name: computed, so it can never be set or moved by hand. */
export const LATEST_LABEL = 'latest';

/** What a resolve without `version` or `label` returns when a version has it (else `latest`). */
export const DEFAULT_LABEL = 'production';

/** Which version of a name a resolve answers. */
export type PromptPick = { by: 'default' } | { by: 'version'; version: number } | { by: 'label'; label: string };

/** The labels a resolve shows: the stored ones, with `latest` on the newest version; sorted. */
export const resolvedLabels = (stored: readonly string[], isLatest: boolean): string[] =>
  (isLatest ? [...stored, LATEST_LABEL] : [...stored]).sort();
