import { Injectable } from '@nestjs/common';
import {
  type LangfuseErrorBody,
  type LangfusePrompt,
  langfusePromptNotFound,
  parseLangfusePromptQuery,
  toLangfusePrompt,
} from '@app/domain';
import { strongEntityTag } from '../http/entity-tag';
import { PromptTemplatesService } from '../prompts/prompt-templates.service';

/** A Langfuse prompt fetch's answer: the prompt with the tag a client revalidates it by, or Langfuse's 404 body. */
export type LangfusePromptAnswer = { kind: 'found'; prompt: LangfusePrompt; etag: string } | { kind: 'missing'; body: LangfuseErrorBody };

/** `GET /api/public/v2/prompts/{name}`: our prompt templates resolved and shown Langfuse's way. */
@Injectable()
export class LangfusePromptsService {
  constructor(private readonly prompts: PromptTemplatesService) {}

  async get(projectId: string, rawName: string, query: Record<string, unknown>): Promise<LangfusePromptAnswer> {
    const { name, pick } = parseLangfusePromptQuery(rawName, query);
    const version = await this.prompts.resolve(projectId, name, pick);
    if (!version) return { kind: 'missing', body: langfusePromptNotFound(name, pick) };
    const prompt = toLangfusePrompt(version);
    // Tagged by what this answer shows, so it differs from our own endpoint's tag for the same version.
    return { kind: 'found', prompt, etag: strongEntityTag([projectId, prompt]) };
  }
}
