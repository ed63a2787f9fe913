import { Injectable } from '@nestjs/common';
import { DomainError, type MemberRole } from '@app/domain';
import { TenancyRepository } from '@app/persistence';

/** Who calls a session-authenticated procedure: the signed-in user, and the address audit records carry. */
export interface Actor {
  userId: string;
  ip: string | null;
}

export const forbidden = (message: string) => new DomainError('FORBIDDEN', message);

/**
 * The one check of a user's membership and role, of an organization or of a project's
 * organization; every session-authenticated procedure goes through it before it reads or
 * changes anything.
 */
@Injectable()
export class AccessService {
  constructor(private readonly repo: TenancyRepository) {}

  /** The actor's role in the organization, once it is one of `allowed` (any role when none is given). */
  async requireOrgRole(actor: Actor, orgId: string, allowed?: readonly MemberRole[]): Promise<MemberRole> {
    const role = await this.repo.roleIn(orgId, actor.userId);
    if (!role) throw forbidden(`you are not a member of organization ${orgId}`);
    return permitted(role, allowed);
  }

  /**
   * The project's organization, once the actor's role in it is checked. A project that does
   * not exist and one of another organization get the same 403, so project ids cannot be
   * probed for, nor their organization learnt.
   */
  async requireProjectRole(actor: Actor, projectId: string, allowed?: readonly MemberRole[]): Promise<string> {
    return (await this.projectMembership(actor, projectId, allowed)).orgId;
  }

  /** As requireProjectRole, with the actor's role, for a rule that depends on it beyond a list (the author of a hand score). */
  async projectMembership(actor: Actor, projectId: string, allowed?: readonly MemberRole[]): Promise<{ orgId: string; role: MemberRole }> {
    const project = await this.repo.project(projectId);
    const role = project && (await this.repo.roleIn(project.orgId, actor.userId));
    if (!project || !role) throw forbidden(`project ${projectId} is not in an organization you belong to`);
    return { orgId: project.orgId, role: permitted(role, allowed) };
  }
}

function permitted(role: MemberRole, allowed?: readonly MemberRole[]): MemberRole {
  if (allowed && !allowed.includes(role)) throw forbidden(`this needs the role ${allowed.join(' or ')}; you are ${role}`);
  return role;
}
