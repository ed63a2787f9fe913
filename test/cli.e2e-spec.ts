import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PASSWORD, type Tenant, bootstrap, data, eventually, login, mutate, query, send } from './support/api';
import { smallBatch } from './support/factories';
import { NATIVE_TRACES, ingest } from './support/ingest';
import { type CliResult, ROOT, type Stack, runCli, startStack } from './support/stack';

const EMAIL = 'cli@spanlog.test';

// Every command is a fresh node process; a test runs several of them.

describe('spanlog command line against the running API', () => {
  let stack: Stack;
  let tenant: Tenant;
  const temporaryDirs: string[] = [];
  const temporaryDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    temporaryDirs.push(dir);
    return dir;
  };

  /** An environment with its own, empty config directory, so every test logs in for itself. */
  const freshEnv = (extra: NodeJS.ProcessEnv = {}) => {
    const config = temporaryDir('spanlog-cli-');
    const env: NodeJS.ProcessEnv = { ...stack.env, XDG_CONFIG_HOME: config, ...extra };
    delete env.SPANLOG_API_KEY;
    return { env, sessionFile: join(config, 'spanlog', 'session.json') };
  };

  /** Runs the CLI and parses its standard output, which must be exactly one JSON document. */
  const json = async (args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<any> => {
    const res = await runCli([...args, '--json'], env, { input });
    if (res.code !== 0) throw new Error(`spanlog ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
    return JSON.parse(res.stdout);
  };

  const loginWithPassword = (env: NodeJS.ProcessEnv) =>
    json(['login', '--email', EMAIL, '--password', PASSWORD, '--api', stack.baseUrl], env);

  /** A failure: non-zero exit, nothing on stdout, exactly one line on stderr. */
  const expectOneLineError = (res: CliResult, pattern: RegExp) => {
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(pattern);
  };

  beforeAll(async () => {
    stack = await startStack();
    tenant = await bootstrap(stack, EMAIL, 'Cli Org', 'cli project');
  }, 120_000);

  afterAll(async () => {
    for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true });
    await stack?.stop();
  });

  it('runs as npx spanlog from the built repository: the bin has its shebang and executable bit', () => {
    const bin = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
    expect(readFileSync(bin, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(statSync(bin).mode & 0o111).toBe(0o111);
    // --offline: the repository's own bin, never a package of that name from the registry.
    const help = spawnSync('npx', ['--offline', 'spanlog', '--help'], { cwd: ROOT, encoding: 'utf8', env: stack.env, timeout: 60_000 });
    expect([help.status, help.stderr]).toEqual([0, '']);
    expect(help.stdout).toMatch(/^Usage: spanlog /);
  });

  it('logs in with --password, keeps the session in a 0600 file, and answers whoami, orgs and projects from it', async () => {
    const { env, sessionFile } = freshEnv();
    expect(await loginWithPassword(env)).toEqual({ user: { id: tenant.userId, email: EMAIL }, api: stack.baseUrl });
    expect(statSync(sessionFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(sessionFile, 'utf8'))).toMatchObject({
      api: stack.baseUrl,
      access_token: expect.any(String),
      refresh_token: expect.any(String),
    });

    // No --api from here on: the session remembers which API it belongs to.
    const org = { id: tenant.orgId, name: 'Cli Org', plan: 'free', role: 'owner' };
    expect(await json(['whoami'], env)).toEqual({ id: tenant.userId, email: EMAIL, organizations: [org] });
    expect(await json(['orgs'], env)).toEqual([org]);
    expect(await json(['projects', '--org', tenant.orgId], env)).toEqual([
      { id: tenant.projectId, name: 'cli project', orgId: tenant.orgId },
    ]);
    const human = await runCli(['orgs'], env);
    expect(human).toMatchObject({ code: 0, stdout: expect.stringContaining('Cli Org') });
  });

  it('reads the password from stdin when --password is absent and stdin is not a terminal', async () => {
    const { env, sessionFile } = freshEnv();
    const res = await runCli(['login', '--email', EMAIL, '--api', stack.baseUrl, '--json'], env, { input: `${PASSWORD}\n` });
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    expect(JSON.parse(res.stdout)).toEqual({ user: { id: tenant.userId, email: EMAIL }, api: stack.baseUrl });
    expect(existsSync(sessionFile)).toBe(true);
  });

  it('keeps the session under ~/.config when XDG_CONFIG_HOME is empty', async () => {
    const home = temporaryDir('spanlog-home-');
    const { env } = freshEnv({ XDG_CONFIG_HOME: '', HOME: home });
    await loginWithPassword(env);
    expect(statSync(join(home, '.config', 'spanlog', 'session.json')).mode & 0o777).toBe(0o600);
  });

  it('creates, lists and revokes keys; a created key reads traces, a revoked one is refused', async () => {
    const { env } = freshEnv();
    await loginWithPassword(env);
    const created = await json(['keys', 'create', '--project', tenant.projectId, '--name', 'from cli'], env);
    expect(Object.keys(created)).toEqual(['id', 'name', 'prefix', 'apiKey', 'createdAt']);
    expect(created).toMatchObject({ name: 'from cli', apiKey: expect.stringMatching(/^sl_/) });

    const listed = await json(['keys', 'list', '--project', tenant.projectId], env);
    expect(listed).toContainEqual({
      id: created.id,
      name: 'from cli',
      prefix: created.prefix,
      createdAt: created.createdAt,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(JSON.stringify(listed)).not.toContain(created.apiKey);

    const seq = await ingest(stack, created.apiKey, NATIVE_TRACES, smallBatch('cli-trace'));

    const page = await json(['traces', 'list', '--key', created.apiKey, '--min-seq', seq, '--api', stack.baseUrl], env);
    expect(page.data.map((t: { externalId: string }) => t.externalId)).toEqual(['cli-trace']);
    expect(page.meta).toEqual({ nextCursor: null });
    const trace = await json(['traces', 'get', 'cli-trace', '--api', stack.baseUrl], { ...env, SPANLOG_API_KEY: created.apiKey });
    expect(trace).toMatchObject({
      externalId: 'cli-trace',
      name: 'trace cli-trace',
      spanCount: 1,
      spans: [expect.objectContaining({ name: 'step' })],
    });

    expect(await json(['keys', 'revoke', '--project', tenant.projectId, '--id', created.id], env)).toEqual({
      id: created.id,
      revoked: true,
    });
    expectOneLineError(
      await runCli(['traces', 'list', '--key', created.apiKey, '--api', stack.baseUrl], env),
      /invalid or revoked API key \(401 UNAUTHORIZED\)/,
    );
    // Neither a key nor a login: one line naming both ways.
    expectOneLineError(
      await runCli(['traces', 'get', 'cli-trace', '--api', stack.baseUrl], freshEnv().env),
      /pass --key, set SPANLOG_API_KEY, or run spanlog login/,
    );
  });

  it('logs out: the session ends on the server and its file is removed', async () => {
    const { env, sessionFile } = freshEnv();
    await loginWithPassword(env);
    const { access_token: token } = JSON.parse(readFileSync(sessionFile, 'utf8'));
    expect((await query(stack, token, 'user.me')).status).toBe(200);

    expect(await json(['logout'], env)).toEqual({ success: true });
    expect(existsSync(sessionFile)).toBe(false);
    expect((await query(stack, token, 'user.me')).status).toBe(401);
    expectOneLineError(await runCli(['whoami'], env), /not logged in/);
  });

  it('refreshes a refused access token by itself and keeps the rotated session, still mode 0600', async () => {
    const { env, sessionFile } = freshEnv();
    await loginWithPassword(env);
    const before = JSON.parse(readFileSync(sessionFile, 'utf8'));
    writeFileSync(sessionFile, JSON.stringify({ ...before, access_token: 'expired' }), { mode: 0o600 });

    expect(await json(['whoami'], env)).toMatchObject({ id: tenant.userId });
    const after = JSON.parse(readFileSync(sessionFile, 'utf8'));
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect((await query(stack, after.access_token, 'user.me')).status).toBe(200);
    expect(statSync(sessionFile).mode & 0o777).toBe(0o600);
    // The spent refresh token really is spent: the server took the rotation.
    expect((await send(stack, 'POST', '/api/v1/auth/refresh', { body: { refresh_token: before.refresh_token } })).status).toBe(401);
  });

  it('asks for a new login once the session has ended on the server', async () => {
    const { env, sessionFile } = freshEnv();
    await loginWithPassword(env);
    const { access_token: token } = JSON.parse(readFileSync(sessionFile, 'utf8'));
    expect((await send(stack, 'POST', '/api/v1/auth/logout', { token })).status).toBe(200);
    expectOneLineError(await runCli(['orgs'], env), /session has ended; run spanlog login again/);
  });

  it('fails on bad credentials with one line on stderr, a non-zero exit and no session file', async () => {
    const { env, sessionFile } = freshEnv();
    expectOneLineError(
      await runCli(['login', '--email', EMAIL, '--password', 'wrong password', '--api', stack.baseUrl, '--json'], env),
      /^spanlog: invalid email or password \(401 UNAUTHORIZED\)\n$/,
    );
    expectOneLineError(
      await runCli(['login', '--email', 'nobody@spanlog.test', '--api', stack.baseUrl], env, { input: 'whatever\n' }),
      /invalid email or password/,
    );
    expect(existsSync(sessionFile)).toBe(false);
  });

  it('fails with one line when the API cannot be reached or a project is not the caller’s', async () => {
    const { env } = freshEnv();
    expectOneLineError(
      await runCli(['login', '--email', EMAIL, '--password', PASSWORD, '--api', 'http://127.0.0.1:9'], env),
      /cannot reach the Spanlog API/,
    );
    await loginWithPassword(env);
    const other = await bootstrap(stack, 'other-cli@spanlog.test', 'Other Org', 'other project');
    expectOneLineError(await runCli(['keys', 'list', '--project', other.projectId], env), /\(403 FORBIDDEN\)/);
  });

  it('after login, reads traces with the session: on the only project, then the one asked for, then the last used, saying which', async () => {
    const { env } = freshEnv();
    await loginWithPassword(env);
    expect((await send(stack, 'POST', '/api/v1/traces', { token: tenant.apiKey, body: smallBatch('cli-session-trace') })).status).toBe(201);
    await eventually(
      () => send(stack, 'GET', '/api/v1/traces/cli-session-trace', { token: tenant.apiKey }),
      (res) => res.status === 200,
    );
    const said = (project: string, name: string, why: string) =>
      `spanlog: reading as ${EMAIL} (login session), project Cli Org / ${name} (${project}): ${why}\n`;

    // The only project: no key, no --project.
    const listed = await runCli(['traces', 'list', '--json'], env);
    expect(listed).toMatchObject({ code: 0, stderr: said(tenant.projectId, 'cli project', 'your only project') });
    expect(JSON.parse(listed.stdout).data.map((t: { externalId: string }) => t.externalId)).toContain('cli-session-trace');
    const got = await runCli(['traces', 'get', 'cli-session-trace', '--json'], env);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ externalId: 'cli-session-trace', spans: [expect.objectContaining({ name: 'step' })] });
    expect(await runCli(['traces', 'list', '--name', 'trace cli-session-trace'], env)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('trace cli-session-trace'),
    });

    // A second project: the last used stays until --project picks the other, which is then the last used.
    const session = await login(stack, EMAIL);
    const second = data(
      await mutate(stack, session.access_token, 'project.create', { orgId: tenant.orgId, name: 'second cli project' }),
    ) as { id: string };
    expect(await runCli(['traces', 'get', 'cli-session-trace', '--json'], env)).toMatchObject({
      code: 0,
      stderr: said(tenant.projectId, 'cli project', 'the last one used; --project picks another'),
    });
    expect(await runCli(['traces', 'list', '--project', second.id, '--json'], env)).toMatchObject({
      code: 0,
      stdout: '{"data":[],"meta":{"nextCursor":null}}\n',
      stderr: said(second.id, 'second cli project', '--project'),
    });
    expect(await runCli(['traces', 'list', '--json'], env)).toMatchObject({
      code: 0,
      stderr: said(second.id, 'second cli project', 'the last one used; --project picks another'),
    });

    // Several projects and none used yet: which to read is asked for, in one line listing them.
    const { env: fresh } = freshEnv();
    await loginWithPassword(fresh);
    expectOneLineError(
      await runCli(['traces', 'list'], fresh),
      new RegExp(`--project is needed: you belong to 2 projects: .*${tenant.projectId} \\(Cli Org / cli project\\)`),
    );
    expectOneLineError(
      await runCli(['traces', 'list', '--project', 'no-such-project'], fresh),
      /--project no-such-project: none of your projects has this id/,
    );
    expectOneLineError(await runCli(['traces', 'list', '--min-seq', 'v1.x', '--project', second.id], fresh), /--min-seq needs an API key/);
    // An API key reads its own project as before; --project with it is a mistake said as one.
    expectOneLineError(
      await runCli(['traces', 'list', '--key', tenant.apiKey, '--project', second.id], fresh),
      /--project: an API key reads its own project/,
    );
    const byKey = await runCli(['traces', 'list', '--json'], { ...fresh, SPANLOG_API_KEY: tenant.apiKey });
    expect(byKey).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(byKey.stdout).data.map((t: { externalId: string }) => t.externalId)).toContain('cli-session-trace');
  });
});
