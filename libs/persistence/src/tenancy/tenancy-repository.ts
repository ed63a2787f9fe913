import type { DataSource, EntityManager } from 'typeorm';
import { type MemberRole, type PlanName, generateApiKey } from '@app/domain';
import { type KeysetOrder, keyset } from '../keyset';
import { affectedRows, returnedRows } from '../query-result';

export interface OrgOfUser {
  id: string;
  name: string;
  plan: PlanName;
  role: MemberRole;
}

export interface ApiKeyListing {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface CreatedApiKey {
  id: string;
  name: string;
  prefix: string;
  apiKey: string;
  createdAt: Date;
}

export interface AuditLogRow {
  id: string;
  action: string;
  actorUserId: string | null;
  /** The API key that acted, for changes made through the REST API (prompt templates). */
  actorApiKeyId: string | null;
  target: string | null;
  details: unknown;
  ip: string | null;
  createdAt: Date;
  /** createdAt at Postgres' full precision, for the page cursor. */
  createdAtText: string;
}

/** Audit events, newest first. */
const AUDIT_LOG_ORDER: KeysetOrder = {
  columns: [
    { sql: 'a.created_at', type: 'timestamptz' },
    { sql: 'a.id', type: 'uuid' },
  ],
  descending: true,
};

export interface Member {
  userId: string;
  email: string;
  role: MemberRole;
  createdAt: Date;
}

/** Organizations, memberships, projects and keys: plain queries, no access rules (the services hold those). */
export class TenancyRepository {
  /** Over the pool, or over a transaction's manager when a caller makes several changes at once (bootstrapTenant). */
  constructor(private readonly db: DataSource | EntityManager) {}

  async user(userId: string): Promise<{ id: string; email: string } | null> {
    const rows = await this.db.query('SELECT id, email FROM users WHERE id = $1', [userId]);
    return rows[0] ?? null;
  }

  /** The one read that returns a password hash: for login only. */
  async credentials(email: string): Promise<{ id: string; email: string; passwordHash: string } | null> {
    const rows = await this.db.query('SELECT id, email, password_hash AS "passwordHash" FROM users WHERE lower(email) = lower($1)', [
      email,
    ]);
    return rows[0] ?? null;
  }

  /** A new user with this password hash (argon2, `hashPassword`). */
  async createUser(email: string, passwordHash: string): Promise<{ id: string; email: string }> {
    const [user] = await this.db.query('INSERT INTO users (email, password_hash) VALUES ($1, $2) RETURNING id, email', [
      email,
      passwordHash,
    ]);
    return user;
  }

  async userByEmail(email: string): Promise<{ id: string; email: string } | null> {
    const rows = await this.db.query('SELECT id, email FROM users WHERE lower(email) = lower($1)', [email]);
    return rows[0] ?? null;
  }

  orgsOf(userId: string): Promise<OrgOfUser[]> {
    return this.db.query(
      `SELECT o.id, o.name, o.plan, m.role FROM organizations o JOIN memberships m ON m.org_id = o.id
        WHERE m.user_id = $1 ORDER BY o.created_at, o.id`,
      [userId],
    );
  }

  async roleIn(orgId: string, userId: string): Promise<MemberRole | null> {
    const rows = await this.db.query('SELECT role FROM memberships WHERE org_id = $1 AND user_id = $2', [orgId, userId]);
    return rows[0]?.role ?? null;
  }

  async org(orgId: string): Promise<{ id: string; name: string; plan: PlanName } | null> {
    const rows = await this.db.query('SELECT id, name, plan FROM organizations WHERE id = $1', [orgId]);
    return rows[0] ?? null;
  }

  /** The plan before the change, or null when there is no such organization. */
  async setPlan(orgId: string, plan: PlanName): Promise<{ from: PlanName } | null> {
    // The self-join reads the row as it was before this UPDATE.
    const rows = await this.db.query(
      'UPDATE organizations o SET plan = $2 FROM organizations old WHERE o.id = $1 AND old.id = o.id RETURNING old.plan AS "from"',
      [orgId, plan],
    );
    return (rows[0] as { from: PlanName }[] | undefined)?.[0] ?? null;
  }

  /**
   * A new Free organization owned by the user; null when they already own `maxFreeOwned` Free
   * ones (0: no limit). The user's row is locked, so creations sent at once are counted in turn.
   */
  async createOrg(userId: string, name: string, maxFreeOwned = 0): Promise<OrgOfUser | null> {
    return this.db.transaction(async (m) => {
      if (maxFreeOwned > 0) {
        await m.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
        const [{ owned }]: { owned: number }[] = await m.query(
          `SELECT count(*)::int AS owned FROM memberships ms JOIN organizations o ON o.id = ms.org_id WHERE ms.user_id = $1 AND ms.role = 'owner' AND o.plan = 'free'`,
          [userId],
        );
        if (owned >= maxFreeOwned) return null;
      }
      const [org] = await m.query(`INSERT INTO organizations (name) VALUES ($1) RETURNING id, name, plan`, [name]);
      await m.query(`INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, 'owner')`, [org.id, userId]);
      return { ...org, role: 'owner' as const };
    });
  }

  projectsOf(orgId: string): Promise<{ id: string; name: string; orgId: string }[]> {
    return this.db.query('SELECT id, name, org_id AS "orgId" FROM projects WHERE org_id = $1 ORDER BY created_at, id', [orgId]);
  }

  async project(projectId: string): Promise<{ id: string; name: string; orgId: string } | null> {
    const rows = await this.db.query('SELECT id, name, org_id AS "orgId" FROM projects WHERE id = $1', [projectId]);
    return rows[0] ?? null;
  }

  /** Null when the organization already has a project of that name. */
  async createProject(orgId: string, name: string): Promise<{ id: string; name: string; orgId: string } | null> {
    const rows = await this.db.query(
      `INSERT INTO projects (org_id, name) VALUES ($1, $2) ON CONFLICT (org_id, name) DO NOTHING RETURNING id, name, org_id AS "orgId"`,
      [orgId, name],
    );
    return rows[0] ?? null;
  }

  /**
   * A new key; null when the project already has `maxActive` unrevoked keys (0: no limit). The
   * project's row is locked, so creations sent at once are counted in turn.
   */
  async createApiKey(projectId: string, name: string, createdBy: string, maxActive = 0): Promise<CreatedApiKey | null> {
    const key = generateApiKey();
    return this.db.transaction(async (m) => {
      if (maxActive > 0) {
        await m.query('SELECT 1 FROM projects WHERE id = $1 FOR UPDATE', [projectId]);
        const [{ active }]: { active: number }[] = await m.query(
          'SELECT count(*)::int AS active FROM api_keys WHERE project_id = $1 AND revoked_at IS NULL',
          [projectId],
        );
        if (active >= maxActive) return null;
      }
      const [row] = await m.query(
        `INSERT INTO api_keys (project_id, name, prefix, key_hash, created_by) VALUES ($1, $2, $3, $4, $5) RETURNING id, name, prefix, created_at AS "createdAt"`,
        [projectId, name, key.prefix, key.hash, createdBy],
      );
      return { ...row, apiKey: key.secret };
    });
  }

  apiKeysOf(projectId: string): Promise<ApiKeyListing[]> {
    return this.db.query(
      `SELECT id, name, prefix, created_at AS "createdAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"
         FROM api_keys WHERE project_id = $1 ORDER BY created_at, id`,
      [projectId],
    );
  }

  /** False when the project has no such key; revoking twice keeps the first time. */
  async revokeApiKey(projectId: string, keyId: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE project_id = $1 AND id = $2 RETURNING id`,
      [projectId, keyId],
    );
    return affectedRows(rows) > 0;
  }

  members(orgId: string): Promise<Member[]> {
    return this.db.query(
      `SELECT u.id AS "userId", u.email, m.role, m.created_at AS "createdAt"
         FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = $1 ORDER BY m.created_at, u.id`,
      [orgId],
    );
  }

  /**
   * Adds a member unless the seat limit is reached; the organization row is locked so two
   * concurrent additions cannot both take the last seat. Answers the plan it checked against.
   * A null user (an e-mail with no account) goes through the same checks and is added nowhere,
   * so the outcome does not tell whether the account exists.
   */
  async addMember(
    orgId: string,
    userId: string | null,
    role: MemberRole,
    seats: (plan: PlanName) => number | null,
  ): Promise<{ outcome: 'added' | 'exists' | 'no_seat'; plan: PlanName }> {
    return this.db.transaction(async (m) => {
      const [{ plan }]: { plan: PlanName }[] = await m.query('SELECT plan FROM organizations WHERE id = $1 FOR UPDATE', [orgId]);
      const existing = userId ? await m.query('SELECT 1 FROM memberships WHERE org_id = $1 AND user_id = $2', [orgId, userId]) : [];
      if (existing.length) return { outcome: 'exists', plan };
      const [{ count }] = await m.query('SELECT count(*)::int AS count FROM memberships WHERE org_id = $1', [orgId]);
      const limit = seats(plan);
      if (limit !== null && count >= limit) return { outcome: 'no_seat', plan };
      if (userId) await m.query('INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, $3)', [orgId, userId, role]);
      return { outcome: 'added', plan };
    });
  }

  /**
   * Removes a member and, when asked, revokes in the same transaction the keys they made in
   * the organization's projects that still work. Answers the keys revoked.
   */
  async removeMember(
    orgId: string,
    userId: string,
    revokeKeys: boolean,
  ): Promise<{ removed: boolean; revokedKeys: { id: string; projectId: string }[] }> {
    return this.db.transaction(async (m) => {
      const removed =
        affectedRows(await m.query('DELETE FROM memberships WHERE org_id = $1 AND user_id = $2 RETURNING user_id', [orgId, userId])) > 0;
      if (!removed || !revokeKeys) return { removed, revokedKeys: [] };
      const revoked = await m.query(
        `UPDATE api_keys k SET revoked_at = now() FROM projects p
          WHERE p.id = k.project_id AND p.org_id = $1 AND k.created_by = $2 AND k.revoked_at IS NULL
          RETURNING k.id, k.project_id AS "projectId"`,
        [orgId, userId],
      );
      return { removed, revokedKeys: returnedRows<{ id: string; projectId: string }>(revoked) };
    });
  }

  async owners(orgId: string): Promise<number> {
    const [{ count }] = await this.db.query(`SELECT count(*)::int AS count FROM memberships WHERE org_id = $1 AND role = 'owner'`, [orgId]);
    return count;
  }

  /**
   * A page of audit events, newest first: an organization's own events, or a user's own
   * security events (logins and sessions, which belong to no organization). A user's events
   * never show in an organization's log: its owners could otherwise follow the logins of
   * anyone they add, from everywhere.
   */
  auditLog(scope: { orgId: string } | { userId: string }, limit: number, after?: [string, string]): Promise<AuditLogRow[]> {
    const params: unknown[] = ['orgId' in scope ? scope.orgId : scope.userId];
    const page = keyset(AUDIT_LOG_ORDER, after, limit, params);
    const owner = 'orgId' in scope ? 'a.org_id = $1' : 'a.org_id IS NULL AND a.actor_user_id = $1';
    return this.db.query(
      `SELECT a.id, a.action, a.actor_user_id AS "actorUserId", a.actor_api_key_id AS "actorApiKeyId", a.target, a.details, a.ip, a.created_at AS "createdAt", a.created_at::text AS "createdAtText"
         FROM audit_log a
        WHERE ${owner} AND ${page.after}
        ORDER BY ${page.orderBy} ${page.limit}`,
      params,
    );
  }
}
