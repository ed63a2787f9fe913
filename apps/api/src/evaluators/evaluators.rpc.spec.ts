import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import type { AppConfig } from '@app/config';
import {
  DomainError,
  type Evaluator,
  type EvaluatorPatch,
  type EvaluatorSettings,
  type EvaluatorWithSecret,
  type MemberRole,
} from '@app/domain';
import type { AuditRecord } from '@app/eventlog';
import type { DataSource } from 'typeorm';
import type { EvaluatorStore, LlmConnectionStore, PromptTemplateStore } from '@app/persistence';
import type { AuditPublisher } from '../audit/audit.publisher';
import type { AccessService, Actor } from '../access/access.service';
import { RpcCallLimiter } from '../rate-limit/rpc-call-limiter';
import { rpcProcedures, router } from '../rpc/procedures';
import { evaluatorRouters } from './evaluators.router';
import type { EvaluatorTestService } from './evaluator-test.service';
import { EvaluatorsService, MASKED_HEADER_VALUE } from './evaluators.service';

const PROJECT = randomUUID();
const ORG = randomUUID();
const AT = '2026-11-22T12:00:00.000Z';
const SECRET = 'Bearer s3cret';

/** The store's contract in memory: what the procedures do with it, not how Postgres keeps it. */
class MemoryStore implements Pick<EvaluatorStore, 'create' | 'list' | 'get' | 'update' | 'rotateSecret' | 'delete'> {
  readonly rows = new Map<string, Evaluator>();
  readonly secrets = new Map<string, string>();

  async create(projectId: string, settings: EvaluatorSettings): Promise<EvaluatorWithSecret> {
    const evaluator = { id: randomUUID(), projectId, ...settings, createdAt: AT, updatedAt: AT };
    this.rows.set(evaluator.id, evaluator);
    return { ...evaluator, signingSecret: this.newSecret(evaluator.id) };
  }

  async rotateSecret(projectId: string, id: string): Promise<EvaluatorWithSecret | null> {
    const current = this.rows.get(id);
    return current?.projectId === projectId ? { ...current, signingSecret: this.newSecret(id) } : null;
  }

  private newSecret(id: string): string {
    const secret = `whsec_${randomUUID()}`;
    this.secrets.set(id, secret);
    return secret;
  }

  async list(projectId: string): Promise<Evaluator[]> {
    return [...this.rows.values()].filter((e) => e.projectId === projectId).sort((a, b) => a.name.localeCompare(b.name));
  }

  async get(projectId: string, id: string): Promise<Evaluator | null> {
    const current = this.rows.get(id);
    return current?.projectId === projectId ? current : null;
  }

  async update(projectId: string, id: string, patch: EvaluatorPatch): Promise<Evaluator | null> {
    const current = this.rows.get(id);
    if (current?.projectId !== projectId) return null;
    const next = { ...current, ...patch, filter: { ...current.filter, ...patch.filter } };
    this.rows.set(id, next);
    return next;
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    return this.rows.get(id)?.projectId === projectId && this.rows.delete(id);
  }
}

function setup(nodeEnv = 'test', evaluatorAllowPrivateNetworks = nodeEnv !== 'production') {
  const roles = new Map<string, MemberRole>([
    ['owner', 'owner'],
    ['admin', 'admin'],
    ['member', 'member'],
  ]);
  // AccessService's rule, reduced to one project in one organization.
  const access = {
    requireProjectRole: jest.fn(async (actor: Actor, projectId: string, allowed?: readonly MemberRole[]) => {
      const role = roles.get(actor.userId);
      if (projectId !== PROJECT || !role) throw new DomainError('FORBIDDEN', 'not a member');
      if (allowed && !allowed.includes(role)) throw new DomainError('FORBIDDEN', `needs ${allowed.join(' or ')}`);
      return ORG;
    }),
  };
  const store = new MemoryStore();
  const audited: AuditRecord[] = [];
  const audit = { record: async (r: AuditRecord) => void audited.push(r) };
  const service = new EvaluatorsService(
    access as unknown as AccessService,
    store as unknown as EvaluatorStore,
    audit as unknown as AuditPublisher,
    { nodeEnv, evaluatorAllowPrivateNetworks } as AppConfig,
    // Judges' connections and prompts, and the run log, are Postgres's: evaluator-judges.int.spec.ts.
    {} as LlmConnectionStore,
    {} as PromptTemplateStore,
    {} as DataSource,
  );
  // evaluator.test calls out: test/llm-judges.e2e-spec.ts.
  const evaluatorRouter = router(evaluatorRouters(service, rpcProcedures(new RpcCallLimiter()), {} as EvaluatorTestService));
  const as = (userId: string) =>
    evaluatorRouter.createCaller({
      ip: '127.0.0.1',
      requestId: 'req-1',
      session: async () => ({ sub: userId, sid: 's', typ: 'access' as const }),
    }).evaluator;
  return { as, store, audited, access };
}

/** The tRPC error a call fails with. */
async function failure(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  const { code, message } = err as TRPCError;
  return { code, message };
}

const created = (over: Record<string, unknown> = {}) => ({
  projectId: PROJECT,
  name: 'relevance',
  url: 'https://eval.example.com/score',
  headers: { Authorization: SECRET },
  ...over,
});

describe('evaluator procedures', () => {
  it('creates an evaluator with every default filled, echoing the headers just sent and showing its signing secret, and audits it without them', async () => {
    const { as, audited, store } = setup();
    const evaluator = await as('admin').create(created());
    expect(evaluator).toEqual({
      id: expect.any(String),
      projectId: PROJECT,
      name: 'relevance',
      kind: 'webhook',
      url: 'https://eval.example.com/score',
      judge: null,
      headers: { Authorization: SECRET },
      timeoutMs: 10_000,
      retries: 1,
      filter: { spanTypes: ['LLM'], names: [], sampleRate: 1, tags: [], environments: [] },
      enabled: true,
      target: 'span',
      quietSeconds: 30,
      createdAt: AT,
      updatedAt: AT,
      signingSecret: store.secrets.get(evaluator.id),
    });
    expect(audited).toEqual([
      {
        orgId: ORG,
        actorUserId: 'admin',
        action: 'evaluator.created',
        target: evaluator.id,
        details: { projectId: PROJECT, name: 'relevance' },
        ip: '127.0.0.1',
      },
    ]);
  });

  it('shows a new signing secret once, on rotation, with header values masked; never in a list; audited without it', async () => {
    const { as, audited, store } = setup();
    const { id, signingSecret: first } = await as('admin').create(created());
    const rotated = await as('admin').rotateSecret({ projectId: PROJECT, id });
    expect(rotated).toMatchObject({ id, headers: { Authorization: MASKED_HEADER_VALUE }, signingSecret: store.secrets.get(id) });
    expect(rotated.signingSecret).not.toBe(first);
    expect(audited.at(-1)).toEqual({
      orgId: ORG,
      actorUserId: 'admin',
      action: 'evaluator.secret_rotated',
      target: id,
      details: { projectId: PROJECT, name: 'relevance' },
      ip: '127.0.0.1',
    });
    const [listed] = await as('member').list({ projectId: PROJECT });
    expect(listed).not.toHaveProperty('signingSecret');
    expect(JSON.stringify(audited)).not.toContain('whsec_');
    expect(await failure(as('member').rotateSecret({ projectId: PROJECT, id }))).toMatchObject({ code: 'FORBIDDEN' });
    expect(await failure(as('admin').rotateSecret({ projectId: PROJECT, id: randomUUID() }))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it.each([
    ['a timeout out of range', created({ timeoutMs: 500 }), 'timeoutMs: must be an integer from 1000 to 30000'],
    ['a sample rate out of range', created({ filter: { sampleRate: 2 } }), 'filter.sampleRate: must be a number from 0 to 1'],
    ['an id, which the evaluator gets from the server', created({ id: randomUUID() }), expect.stringMatching(/^unknown field "id"/)],
    ['a project id that is not a UUID', created({ projectId: 'p' }), 'projectId: must be a UUID'],
  ])('refuses %s as a bad request naming the field, before anything is stored', async (_, input, message) => {
    const { as, store } = setup();
    expect(await failure(as('admin').create(input))).toEqual({ code: 'BAD_REQUEST', message });
    expect(store.rows.size).toBe(0);
  });

  it('refuses an address the worker would not call, when private networks are off (production), naming url', async () => {
    const metadata = created({ url: 'https://169.254.169.254/latest' });
    expect(await failure(setup('production').as('admin').create(metadata))).toEqual({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^url: must not be a private, loopback, link-local or unspecified address/),
    });
    await expect(setup('production', true).as('admin').create(metadata)).resolves.toMatchObject({ url: 'https://169.254.169.254/latest' });
    await expect(setup('development').as('admin').create(metadata)).resolves.toMatchObject({ url: 'https://169.254.169.254/latest' });
  });

  it('refuses http in production only', async () => {
    const local = created({ url: 'http://localhost:9000/score' });
    await expect(setup('development').as('admin').create(local)).resolves.toMatchObject({ url: 'http://localhost:9000/score' });
    expect(await failure(setup('production').as('admin').create(local))).toEqual({
      code: 'BAD_REQUEST',
      message: 'url: must be an https URL in production',
    });
  });

  it('lets members read and owners or admins change, no one outside the organization', async () => {
    const { as } = setup();
    const { id } = await as('owner').create(created());
    expect(await as('member').list({ projectId: PROJECT })).toHaveLength(1);
    for (const call of [
      as('member').create(created({ name: 'other' })),
      as('member').update({ projectId: PROJECT, id, enabled: false }),
      as('member').delete({ projectId: PROJECT, id }),
    ]) {
      expect(await failure(call)).toMatchObject({ code: 'FORBIDDEN' });
    }
    expect(await failure(as('stranger').list({ projectId: PROJECT }))).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('lists header names with their values masked', async () => {
    const { as } = setup();
    await as('admin').create(created({ headers: { Authorization: SECRET, 'X-Team': 'evals' } }));
    const [listed] = await as('member').list({ projectId: PROJECT });
    expect(listed.headers).toEqual({ Authorization: MASKED_HEADER_VALUE, 'X-Team': MASKED_HEADER_VALUE });
  });

  it('updates only the fields given; its answer shows header values only when it set them', async () => {
    const { as, audited } = setup();
    const { id } = await as('admin').create(created({ filter: { spanTypes: ['LLM', 'TOOL'] } }));
    const tuned = await as('admin').update({ projectId: PROJECT, id, filter: { sampleRate: 0.5 }, retries: 3 });
    expect(tuned).toMatchObject({
      retries: 3,
      timeoutMs: 10_000,
      filter: { spanTypes: ['LLM', 'TOOL'], names: [], sampleRate: 0.5 },
      headers: { Authorization: MASKED_HEADER_VALUE },
    });
    expect(audited.at(-1)).toMatchObject({
      action: 'evaluator.updated',
      target: id,
      details: { projectId: PROJECT, name: 'relevance', changed: ['retries', 'filter'] },
    });

    const rotated = await as('admin').update({ projectId: PROJECT, id, headers: { Authorization: 'Bearer new' } });
    expect(rotated.headers).toEqual({ Authorization: 'Bearer new' });
    expect(JSON.stringify(audited)).not.toContain('Bearer');
  });

  it('refuses a header value the call could not send, on create and on update, as a bad request naming the header', async () => {
    const { as, store } = setup();
    const message =
      'headers.Authorization: must be a string of at most 4096 Latin-1 characters without control characters such as CR, LF or NUL';
    expect(await failure(as('admin').create(created({ headers: { Authorization: 'Bearer ключ' } })))).toEqual({
      code: 'BAD_REQUEST',
      message,
    });
    const { id } = await as('admin').create(created());
    expect(await failure(as('admin').update({ projectId: PROJECT, id, headers: { Authorization: 'Bearer \u{1f511}' } }))).toEqual({
      code: 'BAD_REQUEST',
      message,
    });
    expect(store.rows.get(id)?.headers).toEqual({ Authorization: SECRET });
  });

  it('refuses an update that changes nothing, and answers 404 for an evaluator the project does not have', async () => {
    const { as } = setup();
    const { id } = await as('admin').create(created());
    expect(await failure(as('admin').update({ projectId: PROJECT, id }))).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^nothing to change/),
    });
    expect(await failure(as('admin').update({ projectId: PROJECT, id: randomUUID(), enabled: false }))).toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await failure(as('admin').update({ projectId: PROJECT, id: 'e', enabled: false }))).toEqual({
      code: 'BAD_REQUEST',
      message: 'id: must be a UUID',
    });
  });

  it('deletes once, audited', async () => {
    const { as, audited } = setup();
    const { id } = await as('admin').create(created());
    expect(await as('admin').delete({ projectId: PROJECT, id })).toEqual({ id, deleted: true });
    expect(audited.at(-1)).toMatchObject({ action: 'evaluator.deleted', target: id, details: { projectId: PROJECT } });
    expect(await failure(as('admin').delete({ projectId: PROJECT, id }))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await as('admin').list({ projectId: PROJECT })).toEqual([]);
  });
});
