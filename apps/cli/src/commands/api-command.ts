import type { Command } from 'commander';
import { DEFAULT_API_URL } from '../api-client';

export interface ApiOptions {
  api?: string;
  json?: boolean;
}

/** A subcommand that talks to the API, with the options all of them share. */
export const apiCommand = (parent: Command, nameAndArgs: string, description: string): Command =>
  parent
    .command(nameAndArgs)
    .description(description)
    .option('--api <url>', `API base URL (default: the logged-in session's, else ${DEFAULT_API_URL})`)
    .option('--json', 'print exactly one JSON document on stdout');
