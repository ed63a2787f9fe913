import 'reflect-metadata';
import { hashApiKey } from '@app/domain';
import { useTestDatabase } from '../testing/test-database';
import { bootstrapTenant } from './bootstrap';
import { TenancyRepository } from './tenancy-repository';

describe(bootstrapTenant.name, () => {
  const db = useTestDatabase();
  let repo: TenancyRepository;

  beforeAll(() => {
    repo = new TenancyRepository(db.ds);
  });

  const input = { email: 'Ops@spanlog.test', password: 'correct horse battery', orgName: 'Acme', projectName: 'agents' };

  it('makes a user owning an organization with a project, and a working key', async () => {
    const made = await bootstrapTenant(db.ds, { ...input, plan: 'team' });
    expect(await repo.userByEmail('ops@spanlog.test')).toEqual({ id: made.userId, email: 'Ops@spanlog.test' });
    expect(await repo.orgsOf(made.userId)).toEqual([{ id: made.orgId, name: 'Acme', plan: 'team', role: 'owner' }]);
    expect(await repo.projectsOf(made.orgId)).toEqual([{ id: made.projectId, name: 'agents', orgId: made.orgId }]);
    const [key] = await db.ds.query('SELECT project_id, name, key_hash, created_by FROM api_keys WHERE id = $1', [made.apiKeyId]);
    expect(key).toEqual({ project_id: made.projectId, name: 'bootstrap', key_hash: hashApiKey(made.apiKey), created_by: made.userId });
  });

  it('run again, reuses the user (and their password), organization and project, sets the plan asked for, and makes another key', async () => {
    const [{ password_hash: before }] = await db.ds.query('SELECT password_hash FROM users WHERE lower(email) = $1', ['ops@spanlog.test']);
    const first = await bootstrapTenant(db.ds, { ...input, email: 'ops@spanlog.test', password: 'another password' });
    const again = await bootstrapTenant(db.ds, { ...input, plan: 'enterprise', keyName: 'ci' });
    expect(again).toMatchObject({ userId: first.userId, orgId: first.orgId, projectId: first.projectId });
    expect(again.apiKeyId).not.toBe(first.apiKeyId);
    expect((await repo.org(again.orgId))?.plan).toBe('enterprise');
    expect(await db.ds.query('SELECT password_hash FROM users WHERE id = $1', [again.userId])).toEqual([{ password_hash: before }]);
    expect((await repo.apiKeysOf(again.projectId)).map((k) => k.name)).toEqual(['bootstrap', 'bootstrap', 'ci']);
  });
});
