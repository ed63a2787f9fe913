import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { dto } from './rpc-input';
import { AnnotationQueueCreateInput, ApiKeyCreateInput, MemberAddInput, OrgCreateInput, ProjectCreateInput } from './rpc.dto';

/** The tRPC error an input parser refuses `input` with; fails on anything else, a thrown TypeError included. */
function refusal(parse: (input: unknown) => unknown, input: unknown): { code: string; message: string } {
  try {
    parse(input);
  } catch (err) {
    expect(err).toBeInstanceOf(TRPCError);
    return { code: (err as TRPCError).code, message: (err as TRPCError).message };
  }
  throw new Error('expected a refusal');
}

const UNSTORABLE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

describe('RPC inputs', () => {
  const orgId = randomUUID();
  const projectId = randomUUID();

  it.each([
    ['organization.create', dto(OrgCreateInput), { name: 'a\u0000' }, `name: ${UNSTORABLE}`],
    ['project.create', dto(ProjectCreateInput), { orgId, name: '\ud800x' }, `name: ${UNSTORABLE}`],
    ['apiKey.create', dto(ApiKeyCreateInput), { projectId, name: 'key\u0000' }, `name: ${UNSTORABLE}`],
    ['member.add', dto(MemberAddInput), { orgId, email: '\ud800@example.com', role: 'member' }, 'email: must be an e-mail address'],
  ])('%s refuses text Postgres cannot store as a bad request naming the field', (_, parse, input, message) => {
    expect(refusal(parse, input)).toEqual({ code: 'BAD_REQUEST', message });
  });

  it('reads an optional field sent as null as absent, and passes on only the fields the DTO does not declare', () => {
    // The bad-inputs fuzz found `scoreConfigIds: null` reaching the service, which answered 500.
    const parsed = dto(AnnotationQueueCreateInput)({ projectId, name: 'q', scoreConfigIds: null, description: null, page: { limit: 5 } });
    expect(parsed.scoreConfigIds).toBeUndefined();
    expect('scoreConfigIds' in parsed).toBe(false);
    expect(parsed.description).toBeUndefined();
    expect(parsed.page).toEqual({ limit: 5 });
    expect(parsed).toMatchObject({ projectId, name: 'q' });
  });
});
