import { Injectable } from '@nestjs/common';
import { type Actor, AccessService } from '../access/access.service';
import { TraceGroupsService } from './trace-groups.service';

/** Sessions and users read with a session (`traceSession.*`, `traceUser.*`), once the caller's membership of the project's organization is checked. */
@Injectable()
export class TraceGroupReadsService {
  constructor(
    private readonly access: AccessService,
    private readonly groups: TraceGroupsService,
  ) {}

  /** The query past its projectId goes on as sent, for the domain's rules. */
  async listSessions(actor: Actor, projectId: string, query: unknown) {
    await this.access.requireProjectRole(actor, projectId);
    return this.groups.listSessions(projectId, query);
  }

  async getSession(actor: Actor, projectId: string, { id, ...page }: Record<string, unknown>) {
    await this.access.requireProjectRole(actor, projectId);
    return this.groups.getSession(projectId, id, page);
  }

  async listUsers(actor: Actor, projectId: string, query: unknown) {
    await this.access.requireProjectRole(actor, projectId);
    return this.groups.listUsers(projectId, query);
  }

  async getUser(actor: Actor, projectId: string, id: unknown) {
    await this.access.requireProjectRole(actor, projectId);
    return this.groups.getUser(projectId, id);
  }
}
