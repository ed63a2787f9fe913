import { Injectable } from '@nestjs/common';
import {
  PAYLOAD_LIMITS,
  type PromptPick,
  type PromptTemplateSummary,
  type PromptVersion,
  keysetPage,
  notFound,
  parsePromptTemplateQuery,
  resolvedLabels,
  validatePromptVersionInput,
} from '@app/domain';
import type { AuditRecord } from '@app/eventlog';
import { type ApiKeyPrincipal, type LabelMove, PromptTemplateStore } from '@app/persistence';
import { AuditPublisher } from '../audit/audit.publisher';
import { assertBodyWithin } from '../http/body-limit';
import { strongEntityTag } from '../http/entity-tag';

export interface PromptTemplatePage {
  data: PromptTemplateSummary[];
  meta: { nextCursor: string | null };
}

/** What GET answers: a page of the list, or one version with the tag a client revalidates it by. */
export type PromptTemplateAnswer = { kind: 'list'; page: PromptTemplatePage } | { kind: 'version'; version: PromptVersion; etag: string };

function nothingFound(name: string, pick: PromptPick): string {
  switch (pick.by) {
    case 'version':
      return `prompt template "${name}" has no version ${pick.version} in this project`;
    case 'label':
      return `prompt template "${name}" has no version labelled "${pick.label}" in this project`;
    case 'default':
      return `no prompt template is named "${name}" in this project`;
  }
}

/**
 * Prompt templates of the API key's project (CONTRACT "Prompt templates"): push, list and
 * resolve. Every push is audited with the key as its actor: the version it created and each
 * label it set or moved.
 */
@Injectable()
export class PromptTemplatesService {
  constructor(
    private readonly store: PromptTemplateStore,
    private readonly audit: AuditPublisher,
  ) {}

  async push(principal: ApiKeyPrincipal, ip: string, raw: Buffer | undefined, body: unknown): Promise<PromptVersion> {
    assertBodyWithin(raw, PAYLOAD_LIMITS.default);
    const input = validatePromptVersionInput(body);
    const { version, labelMoves } = await this.store.push(principal.projectId, input, principal.apiKeyId);
    await this.recordPush(principal, ip, version, labelMoves);
    return version;
  }

  async get(projectId: string, rawQuery: Record<string, unknown>): Promise<PromptTemplateAnswer> {
    const query = parsePromptTemplateQuery(rawQuery);
    switch (query.kind) {
      case 'list':
        return { kind: 'list', page: await this.page(projectId, query.after, query.limit) };
      case 'resolve': {
        const version = await this.resolve(projectId, query.name, query.pick);
        if (!version) throw notFound(nothingFound(query.name, query.pick));
        // Versions never change once stored, so the project and what is shown decide the tag; a push moving latest or a label changes it.
        return { kind: 'version', version, etag: strongEntityTag([projectId, version]) };
      }
    }
  }

  /** Up to `limit` names after `after`, and the cursor of the next page. */
  async page(projectId: string, after: string | null, limit: number): Promise<PromptTemplatePage> {
    const { data, nextCursor } = keysetPage(await this.store.list(projectId, after, limit + 1), limit, (row) => [row.name]);
    return { data, meta: { nextCursor } };
  }

  /** The version a pick names as a resolve shows it (`latest` among its labels when newest), or null when none matches. */
  async resolve(projectId: string, name: string, pick: PromptPick): Promise<PromptVersion | null> {
    const found = await this.store.resolve(projectId, name, pick);
    return found && { ...found.version, labels: resolvedLabels(found.version.labels, found.isLatest) };
  }

  private async recordPush(principal: ApiKeyPrincipal, ip: string, version: PromptVersion, moves: LabelMove[]): Promise<void> {
    const by = { orgId: principal.orgId, actorUserId: null, actorApiKeyId: principal.apiKeyId, target: version.name, ip };
    const { name, version: n } = version;
    const records: AuditRecord[] = [
      {
        ...by,
        action: n === 1 ? 'prompt_template.created' : 'prompt_template.version_pushed',
        details: { projectId: principal.projectId, name, version: n, labels: version.labels, commitMessage: version.commitMessage },
      },
      ...moves.map((move): AuditRecord => ({
        ...by,
        action: 'prompt_template.label_moved',
        details: { projectId: principal.projectId, name, label: move.label, fromVersion: move.fromVersion, toVersion: n },
      })),
    ];
    await Promise.all(records.map((record) => this.audit.record(record)));
  }
}
