import type { Command } from 'commander';
import { ApiClient } from '../api-client';
import { CliError } from '../output';
import { apiUrl } from '../session';
import { type ApiOptions, apiCommand } from './api-command';

export interface KeyOptions extends ApiOptions {
  key?: string;
}

/** Project data is read and written with an API key, never the login session (SPEC 5). */
export function keyClient(opts: KeyOptions): { api: ApiClient; key: string } {
  const key = opts.key ?? process.env.SPANLOG_API_KEY;
  if (!key) throw new CliError('an API key is needed: pass --key or set SPANLOG_API_KEY');
  return { api: new ApiClient(apiUrl(opts.api)), key };
}

/** A subcommand on a project's data, with the API key option all of them share. */
export const keyCommand = (parent: Command, nameAndArgs: string, description: string): Command =>
  apiCommand(parent, nameAndArgs, description).option('--key <apiKey>', 'project API key (default: $SPANLOG_API_KEY)');
