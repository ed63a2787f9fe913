import { Injectable } from '@nestjs/common';
import {
  type LangfuseErrorBody,
  type LangfuseScoreConfig,
  fromLangfuseScoreConfigRequest,
  langfusePage,
  langfuseScoreConfigNotFound,
  parseLangfusePageQuery,
  toLangfuseScoreConfig,
} from '@app/domain';
import { type ApiKeyPrincipal, ScoreConfigStore } from '@app/persistence';
import { ScoreConfigsService } from '../scores/score-configs.service';

/** `GET|POST /api/public/score-configs` and `GET /api/public/score-configs/{id}`: our score configs shown Langfuse's way. */
@Injectable()
export class LangfuseScoreConfigsService {
  constructor(
    private readonly store: ScoreConfigStore,
    private readonly configs: ScoreConfigsService,
  ) {}

  async page(principal: ApiKeyPrincipal, query: Record<string, unknown>) {
    const { page, limit } = parseLangfusePageQuery(query);
    const { items, total } = await this.store.page(principal.projectId, page, limit);
    return langfusePage(items.map(toLangfuseScoreConfig), page, limit, total);
  }

  async get(principal: ApiKeyPrincipal, id: string): Promise<{ found: LangfuseScoreConfig } | { missing: LangfuseErrorBody }> {
    const config = /^[0-9a-f-]{36}$/i.test(id) ? await this.store.get(principal.projectId, id) : null;
    return config ? { found: toLangfuseScoreConfig(config) } : { missing: langfuseScoreConfigNotFound(id) };
  }

  async create(principal: ApiKeyPrincipal, ip: string | null, body: unknown): Promise<LangfuseScoreConfig> {
    return toLangfuseScoreConfig(await this.configs.createWithKey(principal, ip, fromLangfuseScoreConfigRequest(body)));
  }
}
