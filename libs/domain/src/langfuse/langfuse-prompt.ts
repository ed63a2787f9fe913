/**
 * Langfuse's prompt fetch (`GET /api/public/v2/prompts/{name}`, what `@langfuse/client`'s
 * `prompt.get` calls) answered from Spanlog's prompt templates.
 */
import type { JsonObject } from '../json/types';
import { type ChatMessage, DEFAULT_LABEL, type PromptPick, type PromptVersion } from '../prompts/prompt-template';
import { parsePromptResolve } from '../prompts/validate-prompt-template';

/**
 * A prompt as Langfuse answers it. Spanlog has no tags and no per-version id; `updatedAt` is
 * `createdAt` since a stored version never changes.
 */
export type LangfusePrompt = {
  name: string;
  version: number;
  config: JsonObject;
  labels: string[];
  tags: string[];
  commitMessage: string | null;
  createdAt: string;
  updatedAt: string;
} & ({ type: 'text'; prompt: string } | { type: 'chat'; prompt: ChatMessage[] });

/** Langfuse's error body (`{message, error}`: the error's class name), which its SDKs show as is. */
export interface LangfuseErrorBody {
  message: string;
  error: string;
}

/**
 * The name and pick of a Langfuse prompt fetch. `version` and `label` are ours (both: 400);
 * without either Langfuse answers the version labelled `production`, and nothing when none
 * is, where our own endpoint falls back to `latest`.
 */
export function parseLangfusePromptQuery(name: string, query: Record<string, unknown>): { name: string; pick: PromptPick } {
  const parsed = parsePromptResolve(name, query);
  return parsed.pick.by === 'default' ? { name: parsed.name, pick: { by: 'label', label: DEFAULT_LABEL } } : parsed;
}

/** A resolved version (its labels with `latest` on the newest, as Langfuse shows them too) in Langfuse's shape. */
export function toLangfusePrompt(version: PromptVersion): LangfusePrompt {
  const common = {
    name: version.name,
    version: version.version,
    config: version.config,
    labels: version.labels,
    tags: [],
    commitMessage: version.commitMessage,
    createdAt: version.createdAt,
    updatedAt: version.createdAt,
  };
  return typeof version.template === 'string'
    ? { ...common, type: 'text', prompt: version.template }
    : { ...common, type: 'chat', prompt: version.template };
}

/** Langfuse's 404 for a fetch that matches no version, worded as Langfuse words it. */
export function langfusePromptNotFound(name: string, pick: PromptPick): LangfuseErrorBody {
  const which = (): string => {
    switch (pick.by) {
      case 'version':
        return `with version ${pick.version}`;
      case 'label':
        return `with label '${pick.label}'`;
      case 'default':
        return `with label '${DEFAULT_LABEL}'`;
    }
  };
  return { message: `Prompt not found: '${name}' ${which()}`, error: 'LangfuseNotFoundError' };
}
