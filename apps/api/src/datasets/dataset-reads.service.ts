import { Injectable } from '@nestjs/common';
import { DATASET_LIMITS, type Dataset, type DatasetItem, type DatasetRun } from '@app/domain';
import { type Actor, AccessService } from '../access/access.service';
import { type DatasetPage, DatasetsService, type RunComparison, type RunResults, pageRequest } from './datasets.service';

/** A project's datasets and runs read with a session (`dataset.*`), once the caller's membership of the project's organization is checked. */
@Injectable()
export class DatasetReadsService {
  constructor(
    private readonly access: AccessService,
    private readonly datasets: DatasetsService,
  ) {}

  async list(actor: Actor, projectId: string, page: { page?: number; limit?: number }): Promise<DatasetPage<Dataset>> {
    await this.access.requireProjectRole(actor, projectId);
    return this.datasets.list(projectId, pageRequest(page));
  }

  async get(actor: Actor, projectId: string, name: string): Promise<Dataset> {
    await this.access.requireProjectRole(actor, projectId);
    return this.datasets.get(projectId, name);
  }

  async items(
    actor: Actor,
    projectId: string,
    name: string,
    query: { page?: number; limit?: number; version?: string },
  ): Promise<DatasetPage<DatasetItem>> {
    await this.access.requireProjectRole(actor, projectId);
    return this.datasets.items(projectId, name, query.version ?? null, pageRequest(query));
  }

  async runs(actor: Actor, projectId: string, name: string, page: { page?: number; limit?: number }): Promise<DatasetPage<DatasetRun>> {
    await this.access.requireProjectRole(actor, projectId);
    return this.datasets.runs(projectId, name, pageRequest(page));
  }

  async run(actor: Actor, projectId: string, name: string, runName: string, page: { page?: number; limit?: number }): Promise<RunResults> {
    await this.access.requireProjectRole(actor, projectId);
    return this.datasets.runResults(projectId, name, runName, pageRequest(page, DATASET_LIMITS.runItemsPage.default));
  }

  async compare(actor: Actor, projectId: string, name: string, runNames: string[]): Promise<RunComparison> {
    await this.access.requireProjectRole(actor, projectId);
    return this.datasets.compare(projectId, name, runNames);
  }
}
