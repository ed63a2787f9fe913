import { Injectable } from '@nestjs/common';
import { PROMPT_TEMPLATE_LIMITS, type PromptVersion, notFound, parsePromptListQuery, readPromptName, validationError } from '@app/domain';
import { PromptTemplateStore } from '@app/persistence';
import { type Actor, AccessService } from '../access/access.service';
import { type PromptTemplatePage, PromptTemplatesService } from './prompt-templates.service';

export interface PromptVersionPage {
  data: PromptVersion[];
  meta: { nextCursor: string | null };
}

const VERSION_CURSOR = /^[1-9][0-9]{0,9}$/;

/** A project's prompt templates read with a session (`prompt.*`), once the caller's membership of the project's organization is checked. */
@Injectable()
export class PromptReadsService {
  constructor(
    private readonly access: AccessService,
    private readonly prompts: PromptTemplatesService,
    private readonly promptStore: PromptTemplateStore,
  ) {}

  async listPrompts(actor: Actor, projectId: string, cursor: string | undefined): Promise<PromptTemplatePage> {
    await this.access.requireProjectRole(actor, projectId);
    const { after, limit } = parsePromptListQuery({ cursor });
    return this.prompts.page(projectId, after, limit);
  }

  /** One name's versions, newest first, a page at a time; the cursor is the last version shown. */
  async promptVersions(actor: Actor, projectId: string, rawName: string, cursor: string | undefined): Promise<PromptVersionPage> {
    const name = readPromptName(rawName);
    if (cursor !== undefined && !VERSION_CURSOR.test(cursor)) throw validationError('cursor: not a cursor returned by prompt.versions');
    await this.access.requireProjectRole(actor, projectId);
    const limit = PROMPT_TEMPLATE_LIMITS.list.default;
    const rows = await this.promptStore.versions(projectId, name, cursor === undefined ? null : Number(cursor), limit + 1);
    if (!rows.length && cursor === undefined) throw notFound(`no prompt template is named "${name}" in this project`);
    const data = rows.slice(0, limit);
    const last = data[data.length - 1];
    return { data, meta: { nextCursor: rows.length > limit && last ? String(last.version) : null } };
  }
}
