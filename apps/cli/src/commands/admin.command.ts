import type { Command } from 'commander';
import { isPlanName, PLAN_NAMES, type PlanName } from '@app/domain';
import { appendAuditEvent, auditRetention, retentionEventLog } from '@app/eventlog';
import { TenancyRepository, assertSchemaCurrent, bootstrapTenant, ensureDatabaseExists, findOrCreateUser } from '@app/persistence';
import { runRetention } from '@app/projections';
import { loadConfig } from '@app/config';
import { withDatabase } from '../database';
import { withEventLog } from '../event-log';
import { timestampOption } from '../options';
import { CliError, printResult, table } from '../output';

const planOption = (value: string): PlanName => {
  if (!isPlanName(value)) throw new CliError(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
  return value;
};

export function registerAdminCommands(program: Command): void {
  const admin = program.command('admin').description('operator commands (use DATABASE_URL / NATS_URL directly)');

  admin
    .command('migrate')
    .description('apply pending database migrations (safe to run twice)')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      await ensureDatabaseExists(loadConfig().databaseUrl);
      const applied = await withDatabase(async (ds) => (await ds.runMigrations({ transaction: 'each' })).map((m) => m.name));
      printResult({ applied }, !!opts.json, () => (applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date'));
    });

  admin
    .command('bootstrap')
    .description('create (or reuse) a user, organization and project, and make a new API key')
    .requiredOption('--email <email>')
    .requiredOption('--password <password>')
    .requiredOption('--org <name>')
    .requiredOption('--project <name>')
    .option('--plan <plan>', `one of ${PLAN_NAMES.join(', ')}`, planOption)
    .option('--json', 'print JSON')
    .action(async (opts: { email: string; password: string; org: string; project: string; plan?: PlanName; json?: boolean }) => {
      const result = await withDatabase(async (ds) => {
        await assertSchemaCurrent(ds);
        return bootstrapTenant(ds, {
          email: opts.email,
          password: opts.password,
          orgName: opts.org,
          projectName: opts.project,
          plan: opts.plan,
        });
      });
      printResult(result, !!opts.json, () =>
        [
          `user     ${result.userId}`,
          `org      ${result.orgId}`,
          `project  ${result.projectId}`,
          `api key  ${result.apiKey}  (shown once; id ${result.apiKeyId})`,
        ].join('\n'),
      );
    });

  const user = admin.command('user').description('manage users');
  user
    .command('create')
    .requiredOption('--email <email>')
    .requiredOption('--password <password>')
    .option('--json', 'print JSON')
    .action(async (opts: { email: string; password: string; json?: boolean }) => {
      const created = await withDatabase(async (ds) => {
        await assertSchemaCurrent(ds);
        return ds.transaction((m) => findOrCreateUser(m, opts.email, opts.password));
      });
      printResult({ id: created.id, email: created.email }, !!opts.json, () => `user ${created.id} <${created.email}>`);
    });

  admin
    .command('set-plan')
    .requiredOption('--org <id>')
    .requiredOption('--plan <plan>', `one of ${PLAN_NAMES.join(', ')}`, planOption)
    .option('--json', 'print JSON')
    .action(async (opts: { org: string; plan: PlanName; json?: boolean }) => {
      // The event log is opened first: a plan change is audited, so none happens while the audit stream is unreachable.
      await withEventLog((nats) =>
        withDatabase(async (ds) => {
          const changed = await new TenancyRepository(ds).setPlan(opts.org, opts.plan);
          if (!changed) throw new CliError(`organization ${opts.org} not found`);
          if (changed.from === opts.plan) return;
          await appendAuditEvent(nats.js, nats.layout, {
            orgId: opts.org,
            actorUserId: null,
            action: 'organization.plan_changed',
            target: opts.org,
            details: { from: changed.from, to: opts.plan, by: 'operator' },
            ip: null,
          });
        }),
      );
      printResult({ orgId: opts.org, plan: opts.plan }, !!opts.json, () => `organization ${opts.org} is now on ${opts.plan}`);
    });

  admin
    .command('retention')
    .description('data retention (SPEC 8.5)')
    .command('run')
    .description("delete every organization's traces older than its plan's retention, now or as of --now")
    .option('--now <iso>', 'the instant to measure retention from (default: the current time)', timestampOption('--now'))
    .option('--json', 'print JSON')
    .action(async (opts: { now?: Date; json?: boolean }) => {
      const run = await withEventLog((nats) =>
        withDatabase(async (ds) => {
          await assertSchemaCurrent(ds);
          const result = await runRetention(ds, retentionEventLog(nats), opts.now?.getTime() ?? Date.now());
          if (result.ran) await auditRetention(nats, result.organizations);
          return result;
        }),
      );
      if (!run.ran) throw new CliError(`retention did not run: ${run.reason}`);
      printResult(run, !!opts.json, () =>
        [
          `retention as of ${run.now}`,
          table(
            run.organizations.map((o) => [
              o.orgId,
              o.plan,
              `before ${o.cutoff}`,
              `${o.traces} traces`,
              `${o.spans} spans`,
              `${o.scores} scores`,
              `${o.removedMessages} messages removed`,
            ]),
          ),
        ].join('\n'),
      );
    });
}
