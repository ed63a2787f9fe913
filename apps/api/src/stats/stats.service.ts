import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type Overview, type OverviewRange, buildOverview, storedBucketRange, validateOverviewRange } from '@app/domain';
import { readOverviewSums } from '@app/projections';
import { type Actor, AccessService } from '../access/access.service';
import { READ_DB } from '../infrastructure/read-db';

/** The stats the dashboard's overview shows, read from the stats read model (never a scan of spans). */
@Injectable()
export class StatsService {
  constructor(
    @Inject(READ_DB) private readonly ds: DataSource,
    private readonly access: AccessService,
  ) {}

  /** `stats.overview` (RPC-SHAPES): `range` is the input as sent past its projectId, checked here. */
  async overview(actor: Actor, projectId: string, range: unknown): Promise<Overview> {
    const checked = validateOverviewRange(range);
    await this.access.requireProjectRole(actor, projectId);
    return this.overviewOf(projectId, checked);
  }

  /** The overview of a project its caller may read (an API key's, MCP's `project_overview`). */
  async overviewOf(projectId: string, checked: OverviewRange): Promise<Overview> {
    const { from, to } = storedBucketRange(checked);
    return buildOverview(checked, await readOverviewSums(this.ds, projectId, from, to, checked.bucketSeconds));
  }
}
