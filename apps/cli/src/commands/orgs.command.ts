import type { Command } from 'commander';
import { printResult, table } from '../output';
import { LoggedIn } from '../session';
import { type ApiOptions, apiCommand } from './api-command';

export function registerOrgCommands(program: Command): void {
  apiCommand(program, 'orgs', 'organizations you belong to').action(async (opts: ApiOptions) => {
    const organizations = await LoggedIn.open(opts.api).rpc.organization.list.query();
    printResult(organizations, !!opts.json, () => table(organizations.map((o) => [o.id, o.name, o.plan, o.role])));
  });

  apiCommand(program, 'projects', "an organization's projects")
    .requiredOption('--org <id>')
    .action(async (opts: ApiOptions & { org: string }) => {
      const projects = await LoggedIn.open(opts.api).rpc.project.list.query({ orgId: opts.org });
      printResult(projects, !!opts.json, () => table(projects.map((p) => [p.id, p.name])));
    });
}
