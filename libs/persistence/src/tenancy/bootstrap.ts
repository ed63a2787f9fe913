import type { DataSource, EntityManager } from 'typeorm';
import type { PlanName } from '@app/domain';
import { hashPassword } from './passwords';
import { TenancyRepository } from './tenancy-repository';

export interface BootstrapInput {
  email: string;
  password: string;
  orgName: string;
  projectName: string;
  plan?: PlanName;
  keyName?: string;
}

export interface BootstrapResult {
  userId: string;
  orgId: string;
  projectId: string;
  apiKey: string;
  apiKeyId: string;
}

/** Finds a user by e-mail (case-insensitive) or creates one; an existing user's password is kept. */
export async function findOrCreateUser(m: EntityManager, email: string, password: string): Promise<{ id: string; email: string }> {
  const users = new TenancyRepository(m);
  return (await users.userByEmail(email)) ?? users.createUser(email, await hashPassword(password));
}

/**
 * Creates (or reuses) a user, an organization the user owns and a project in it, and makes
 * a new API key — the operator's one step from an empty database to an SDK that can send.
 * One transaction, through the repository the API uses.
 */
export async function bootstrapTenant(db: DataSource, input: BootstrapInput): Promise<BootstrapResult> {
  return db.transaction(async (m) => {
    const repo = new TenancyRepository(m);
    const user = await findOrCreateUser(m, input.email, input.password);
    const owned = (await repo.orgsOf(user.id)).find((o) => o.name === input.orgName);
    // No limit of Free organizations here: the operator is not a user signing up.
    const org = owned ?? (await repo.createOrg(user.id, input.orgName));
    if (!org) throw new Error(`organization "${input.orgName}" could not be created`);
    if (input.plan && org.plan !== input.plan) await repo.setPlan(org.id, input.plan);
    const project =
      (await repo.projectsOf(org.id)).find((p) => p.name === input.projectName) ?? (await repo.createProject(org.id, input.projectName));
    if (!project) throw new Error(`project "${input.projectName}" could not be created`);
    const key = await repo.createApiKey(project.id, input.keyName ?? 'bootstrap', user.id);
    if (!key) throw new Error(`an API key could not be made for project "${input.projectName}"`);
    return { userId: user.id, orgId: org.id, projectId: project.id, apiKey: key.apiKey, apiKeyId: key.id };
  });
}
