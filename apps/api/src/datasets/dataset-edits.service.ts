import { Injectable } from '@nestjs/common';
import { type Dataset, type DatasetItem, validationError } from '@app/domain';
import { type Actor, AccessService } from '../access/access.service';
import { type DatasetWriter, DatasetsService } from './datasets.service';

/**
 * A project's datasets and items changed from the dashboard (`dataset.create|upsertItems|archiveItem`)
 * by any member of the project's organization: the REST writes' validation, limits, store and
 * audit, with the member as the actor instead of an API key.
 */
@Injectable()
export class DatasetEditsService {
  constructor(
    private readonly access: AccessService,
    private readonly datasets: DatasetsService,
  ) {}

  async create(actor: Actor, projectId: string, fields: Record<string, unknown>): Promise<Dataset> {
    return this.datasets.saveAs(await this.writer(actor, projectId), fields);
  }

  /** Up to DATASET_LIMITS.itemsPerRequest items, idempotent by id, all or nothing: `body` is `{ items }` as REST takes it. */
  async upsertItems(
    actor: Actor,
    projectId: string,
    datasetName: string,
    body: { items: unknown },
  ): Promise<{ accepted: number; ids: string[] }> {
    const items = await this.datasets.pushItemsAs(await this.writer(actor, projectId), datasetName, body);
    return { accepted: items.length, ids: items.map((i) => i.id) };
  }

  /** What an import checks before it sends any item: each item's first fault, by index. */
  async checkItems(actor: Actor, projectId: string, datasetName: string, items: unknown) {
    await this.access.requireProjectRole(actor, projectId);
    if (!Array.isArray(items)) throw validationError('items: must be an array');
    return this.datasets.checkItems(projectId, datasetName, items);
  }

  async archiveItem(actor: Actor, projectId: string, datasetName: string, itemId: string, archived: boolean): Promise<DatasetItem> {
    return this.datasets.archiveItem(await this.writer(actor, projectId), datasetName, itemId, archived);
  }

  private async writer(actor: Actor, projectId: string): Promise<DatasetWriter> {
    const orgId = await this.access.requireProjectRole(actor, projectId);
    return { orgId, projectId, apiKeyId: null, userId: actor.userId, ip: actor.ip };
  }
}
