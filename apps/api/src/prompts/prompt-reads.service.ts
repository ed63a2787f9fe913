import { Injectable } from '@nestjs/common';
import {
  PROMPT_TEMPLATE_LIMITS,
  type PromptVersion,
  decodeCursor,
  isPositiveInt,
  keysetPage,
  notFound,
  parsePromptListQuery,
  readPromptName,
} from '@app/domain';
import { PromptTemplateStore } from '@app/persistence';
import { type Actor, AccessService } from '../access/access.service';
import { type PromptTemplatePage, PromptTemplatesService } from './prompt-templates.service';

export interface PromptVersionPage {
  data: PromptVersion[];
  meta: { nextCursor: string | null };
}

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
    const before = cursor === undefined ? null : decodeCursor<[number]>(cursor, [isPositiveInt])[0];
    await this.access.requireProjectRole(actor, projectId);
    const limit = PROMPT_TEMPLATE_LIMITS.list.default;
    const rows = await this.promptStore.versions(projectId, name, before, limit + 1);
    if (!rows.length && before === null) throw notFound(`no prompt template is named "${name}" in this project`);
    const { data, nextCursor } = keysetPage(rows, limit, (version) => [version.version]);
    return { data, meta: { nextCursor } };
  }
}
