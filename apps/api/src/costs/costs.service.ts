import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type UnpricedUsage, unpricedUsageOf, validateUnpricedQuery } from '@app/domain';
import { readUnpricedUsage } from '@app/projections';
import { type Actor, AccessService } from '../access/access.service';
import { READ_DB } from '../infrastructure/read-db';

/** What a project's costs leave out (docs/ingestion.md "Cost"): read from the 5-minute stats, never a scan of spans. */
@Injectable()
export class CostsService {
  constructor(
    @Inject(READ_DB) private readonly ds: DataSource,
    private readonly access: AccessService,
  ) {}

  /** `GET /api/v1/costs/unpriced`: the query as sent, checked by the domain's rules. */
  async unpriced(projectId: string, query: unknown): Promise<UnpricedUsage> {
    const range = validateUnpricedQuery(query);
    return unpricedUsageOf(range, await readUnpricedUsage(this.ds, projectId, range.from, range.to));
  }

  /** `cost.unpriced`: the same for a member of the project. */
  async unpricedFor(actor: Actor, projectId: string, query: unknown): Promise<UnpricedUsage> {
    const range = validateUnpricedQuery(query);
    await this.access.requireProjectRole(actor, projectId);
    return unpricedUsageOf(range, await readUnpricedUsage(this.ds, projectId, range.from, range.to));
  }
}
