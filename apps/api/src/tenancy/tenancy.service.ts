import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  ADMIN_ROLES,
  CREATION_RATE,
  DEFAULT_MAX_FREE_ORGS_PER_USER,
  DomainError,
  MAX_ACTIVE_API_KEYS_PER_PROJECT,
  type MemberRole,
  OWNER_ROLES,
  PLANS,
  TIME_ID_CURSOR,
  decodeCursor,
  keysetPage,
  notFound,
  usageReport,
  utcMonthOf,
  validationError,
} from '@app/domain';
import { TenancyRepository, UsageQueries } from '@app/persistence';
import { type Actor, AccessService } from '../access/access.service';
import { AuditPublisher } from '../audit/audit.publisher';
import { CreationLimiter } from './creation-limiter';

const AUDIT_PAGE = 50;

const forbidden = (message: string) => new DomainError('FORBIDDEN', message);

/**
 * The dashboard's tenancy operations, each checked for membership and role first (AccessService). Creations
 * are limited per user (CreationLimiter, after the access check so that a refused call costs
 * no share) and counted: Free organizations per owner, active keys per project (403
 * QUOTA_EXCEEDED naming the limit).
 */
@Injectable()
export class TenancyService {
  private readonly creations: CreationLimiter;
  private readonly maxFreeOrgsPerUser: number;

  constructor(
    private readonly repo: TenancyRepository,
    private readonly access: AccessService,
    private readonly usageCounters: UsageQueries,
    private readonly audit: AuditPublisher,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.creations = new CreationLimiter(config.creationsPerMinute ?? CREATION_RATE.perWindow);
    this.maxFreeOrgsPerUser = config.maxFreeOrgsPerUser ?? DEFAULT_MAX_FREE_ORGS_PER_USER;
  }

  async me(actor: Actor) {
    const user = await this.repo.user(actor.userId);
    if (!user) throw new DomainError('UNAUTHORIZED', 'user no longer exists');
    return user;
  }

  listOrgs(actor: Actor) {
    return this.repo.orgsOf(actor.userId);
  }

  async createOrg(actor: Actor, name: string) {
    this.creations.take(actor.userId);
    const org = await this.repo.createOrg(actor.userId, name, this.maxFreeOrgsPerUser);
    if (!org) {
      const max = this.maxFreeOrgsPerUser;
      throw new DomainError(
        'QUOTA_EXCEEDED',
        `a user may own at most ${max} Free organization${max === 1 ? '' : 's'}; upgrade one of yours to create another`,
      );
    }
    await this.audit.record({
      orgId: org.id,
      actorUserId: actor.userId,
      action: 'organization.created',
      target: org.id,
      details: { name },
      ip: actor.ip,
    });
    return org;
  }

  async listProjects(actor: Actor, orgId: string) {
    await this.access.requireOrgRole(actor, orgId);
    return this.repo.projectsOf(orgId);
  }

  async createProject(actor: Actor, orgId: string, name: string) {
    await this.access.requireOrgRole(actor, orgId, ADMIN_ROLES);
    this.creations.take(actor.userId);
    const project = await this.repo.createProject(orgId, name);
    if (!project) throw validationError(`name: a project named "${name}" already exists in this organization`);
    await this.audit.record({
      orgId,
      actorUserId: actor.userId,
      action: 'project.created',
      target: project.id,
      details: { name },
      ip: actor.ip,
    });
    return project;
  }

  async createApiKey(actor: Actor, projectId: string, name: string) {
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    this.creations.take(actor.userId);
    const key = await this.repo.createApiKey(projectId, name, actor.userId, MAX_ACTIVE_API_KEYS_PER_PROJECT);
    if (!key)
      throw new DomainError(
        'QUOTA_EXCEEDED',
        `a project may have at most ${MAX_ACTIVE_API_KEYS_PER_PROJECT} active API keys; revoke one to create another`,
      );
    await this.audit.record({
      orgId,
      actorUserId: actor.userId,
      action: 'api_key.created',
      target: key.id,
      details: { projectId, name, prefix: key.prefix },
      ip: actor.ip,
    });
    return key;
  }

  async listApiKeys(actor: Actor, projectId: string) {
    await this.access.requireProjectRole(actor, projectId);
    return this.repo.apiKeysOf(projectId);
  }

  async revokeApiKey(actor: Actor, projectId: string, id: string) {
    const orgId = await this.access.requireProjectRole(actor, projectId, ADMIN_ROLES);
    if (!(await this.repo.revokeApiKey(projectId, id))) throw notFound(`API key ${id} not found in project ${projectId}`);
    await this.audit.record({
      orgId,
      actorUserId: actor.userId,
      action: 'api_key.revoked',
      target: id,
      details: { projectId },
      ip: actor.ip,
    });
    return { id, revoked: true };
  }

  async listMembers(actor: Actor, orgId: string) {
    await this.access.requireOrgRole(actor, orgId);
    return this.repo.members(orgId);
  }

  /**
   * Adds the account with this e-mail. The answer is the same whether or not there is one (an
   * e-mail with no account is added nowhere), so it cannot be used to find out who has an
   * account; seats and roles are checked the same way for both.
   */
  async addMember(actor: Actor, orgId: string, email: string, role: MemberRole) {
    await this.access.requireOrgRole(actor, orgId, role === 'owner' ? OWNER_ROLES : ADMIN_ROLES);
    const user = await this.repo.userByEmail(email);
    const { outcome, plan } = await this.repo.addMember(orgId, user?.id ?? null, role, (p) => PLANS[p].seats);
    switch (outcome) {
      case 'no_seat': {
        const seats = PLANS[plan].seats;
        throw forbidden(`the ${plan} plan allows ${seats} seat${seats === 1 ? '' : 's'}, all taken; upgrade the plan to add members`);
      }
      case 'exists':
        throw validationError(`email: ${email} is already a member`);
      case 'added':
        if (user)
          await this.audit.record({
            orgId,
            actorUserId: actor.userId,
            action: 'member.added',
            target: user.id,
            details: { email: user.email, role },
            ip: actor.ip,
          });
        return { email, role };
    }
  }

  /**
   * Removes a member. The API keys they made stay (they belong to the project, and revoking
   * them would stop its ingestion) unless `revokeKeys` asks for the ones they made in this
   * organization to be revoked with the removal.
   */
  async removeMember(actor: Actor, orgId: string, userId: string, revokeKeys = false) {
    await this.access.requireOrgRole(actor, orgId, ADMIN_ROLES);
    const role = await this.repo.roleIn(orgId, userId);
    if (!role) throw notFound(`user ${userId} is not a member of organization ${orgId}`);
    if (role === 'owner') {
      await this.access.requireOrgRole(actor, orgId, OWNER_ROLES);
      if ((await this.repo.owners(orgId)) <= 1) throw validationError('userId: an organization keeps at least one owner');
    }
    const { revokedKeys } = await this.repo.removeMember(orgId, userId, revokeKeys);
    await this.audit.record({
      orgId,
      actorUserId: actor.userId,
      action: 'member.removed',
      target: userId,
      details: { role, revokedKeys: revokedKeys.length },
      ip: actor.ip,
    });
    for (const key of revokedKeys) {
      await this.audit.record({
        orgId,
        actorUserId: actor.userId,
        action: 'api_key.revoked',
        target: key.id,
        details: { projectId: key.projectId, reason: 'its maker was removed from the organization' },
        ip: actor.ip,
      });
    }
    return { userId, removed: true, revokedKeys: revokedKeys.length };
  }

  /** The organization's own events, newest first, a page at a time; the same `{data, meta: {nextCursor}}` page as the trace list. */
  async auditLog(actor: Actor, orgId: string, cursor?: string) {
    await this.access.requireOrgRole(actor, orgId, ADMIN_ROLES);
    const org = await this.repo.org(orgId);
    if (!org || !PLANS[org.plan].auditLogs) {
      throw forbidden(`audit logs are not part of the ${org?.plan} plan (Growth, Team and Enterprise have them)`);
    }
    return this.auditPage({ orgId }, cursor);
  }

  /** The caller's own security events (logins, failed logins, logouts, refresh reuse), on every plan: theirs to see alone. */
  securityLog(actor: Actor, cursor?: string) {
    return this.auditPage({ userId: actor.userId }, cursor);
  }

  private async auditPage(scope: { orgId: string } | { userId: string }, cursor?: string) {
    const rows = await this.repo.auditLog(
      scope,
      AUDIT_PAGE + 1,
      cursor ? decodeCursor<[string, string]>(cursor, TIME_ID_CURSOR) : undefined,
    );
    const { data, nextCursor } = keysetPage(rows, AUDIT_PAGE, (row) => [row.createdAtText, row.id]);
    return { data: data.map(({ createdAtText: _, ...row }) => row), meta: { nextCursor } };
  }

  /** This UTC month's counters against the organization's plan (SPEC 2.7, 8.3). */
  async usage(actor: Actor, orgId: string, now = Date.now()) {
    await this.access.requireOrgRole(actor, orgId);
    const org = await this.repo.org(orgId);
    if (!org) throw notFound(`organization ${orgId} not found`);
    const month = utcMonthOf(now);
    return usageReport(org.plan, month, await this.usageCounters.month(orgId, month));
  }

  /** This UTC month's counts per day (`usage.daily`): the days that counted anything, for the dashboard's chart. */
  async usageDaily(actor: Actor, orgId: string, now = Date.now()) {
    await this.access.requireOrgRole(actor, orgId);
    const month = utcMonthOf(now);
    return { month, days: await this.usageCounters.days(orgId, month) };
  }
}
