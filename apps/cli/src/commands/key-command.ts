import type { Command } from 'commander';
import { ApiClient } from '../api-client';
import { type ProjectReason, readLastProject, rememberLastProject, startingProject } from '../last-project';
import { CliError } from '../output';
import { LoggedIn, apiUrl } from '../session';
import { readSession } from '../session-file';
import { SpanlogRpc } from '../tui/spanlog-rpc';
import { type ApiOptions, apiCommand } from './api-command';

export interface KeyOptions extends ApiOptions {
  key?: string;
}

/** Project data is read and written with an API key here (SPEC 5: one project, server to server). */
export function keyClient(opts: KeyOptions): { api: ApiClient; key: string } {
  const key = opts.key ?? process.env.SPANLOG_API_KEY;
  if (!key) throw new CliError('an API key is needed: pass --key or set SPANLOG_API_KEY');
  return { api: new ApiClient(apiUrl(opts.api)), key };
}

/** A subcommand on a project's data, with the API key option all of them share. */
export const keyCommand = (parent: Command, nameAndArgs: string, description: string): Command =>
  apiCommand(parent, nameAndArgs, description).option('--key <apiKey>', 'project API key (default: $SPANLOG_API_KEY)');

export interface ReadOptions extends KeyOptions {
  project?: string;
}

/** How a read command reaches a project: its API key over REST, or the login session over the dashboard RPC. */
export type ReadAccess = { kind: 'key'; api: ApiClient; key: string } | { kind: 'session'; me: LoggedIn; projectId: string };

/** A subcommand that reads a project's data with an API key, or else with the login session. */
export const readCommand = (parent: Command, nameAndArgs: string, description: string): Command =>
  keyCommand(parent, nameAndArgs, description).option(
    '--project <id>',
    'with the login session (no API key): the project to read (default: your only project, else the last one used)',
  );

const REASONS: Record<ProjectReason, string> = {
  asked: '--project',
  only: 'your only project',
  last: 'the last one used; --project picks another',
};

/**
 * An API key when one is given (`--key`, `SPANLOG_API_KEY`), exactly as before; else the login
 * session, on the project asked for, the user's only one, or the last one used. Which project
 * and why is said on stderr, so stdout stays the answer alone (`--json`).
 */
export async function readAccess(
  opts: ReadOptions,
  say: (line: string) => void = (line) => process.stderr.write(`spanlog: ${line}\n`),
): Promise<ReadAccess> {
  const key = opts.key ?? process.env.SPANLOG_API_KEY;
  if (key) {
    if (opts.project !== undefined)
      throw new CliError(
        '--project: an API key reads its own project; leave --project out, or leave the key out to use your login session',
      );
    return { kind: 'key', ...keyClient(opts) };
  }
  if (!readSession())
    throw new CliError('an API key or a login is needed: pass --key, set SPANLOG_API_KEY, or run spanlog login --email <email>');
  const me = LoggedIn.open(opts.api);
  const choices = await new SpanlogRpc(me).projects();
  const start = startingProject(choices, opts.project, readLastProject(me.api.baseUrl, me.userId));
  if (!start) {
    if (opts.project !== undefined)
      throw new CliError(
        `--project ${opts.project}: none of your projects has this id (spanlog orgs, then spanlog projects --org <id>, lists them)`,
      );
    if (!choices.length) throw new CliError('you belong to no project yet: create one with spanlog projects or the dashboard');
    const listed =
      choices
        .slice(0, 10)
        .map((c) => `${c.project.id} (${c.org.name} / ${c.project.name})`)
        .join(', ') + (choices.length > 10 ? ', …' : '');
    throw new CliError(`--project is needed: you belong to ${choices.length} projects: ${listed}`);
  }
  const { project, org } = start.choice;
  say(`reading as ${me.email} (login session), project ${org.name} / ${project.name} (${project.id}): ${REASONS[start.reason]}`);
  rememberLastProject({ api: me.api.baseUrl, userId: me.userId, projectId: project.id });
  return { kind: 'session', me, projectId: project.id };
}
