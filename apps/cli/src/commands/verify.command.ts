import type { Command } from 'commander';
import { assertSchemaCurrent } from '@app/persistence';
import {
  type ProjectVerification,
  type RepairResult,
  UnknownProjectError,
  type Verification,
  repairTelemetry,
  verifyTelemetry,
} from '@app/projections';
import { withDatabase } from '../database';
import { withEventLog } from '../event-log';
import { uuidOption } from '../options';
import { CliError, printResult } from '../output';

/** Exit code when the stream and the projections differ (1 is for errors). */
export const VERIFY_DIFFERENCES_EXIT_CODE = 2;

const tables = ['traces', 'spans', 'scores'] as const;

function describeProject(p: ProjectVerification): string {
  const parts: string[] = [];
  const seqs = (l: { count: number; seqs: number[] }) => `${l.seqs.join(', ')}${l.count > l.seqs.length ? ', …' : ''}`;
  if (p.unapplied.count) parts.push(`${p.unapplied.count} stored requests never applied (sequences ${seqs(p.unapplied)})`);
  if (p.rejected.count) parts.push(`${p.rejected.count} stored requests unreadable (sequences ${seqs(p.rejected)})`);
  for (const t of tables) {
    if (p[t].missing) parts.push(`${p[t].missing} of ${p[t].expected} ${t} missing`);
    if (p[t].extra) parts.push(`${p[t].extra} ${t} written by no stored request`);
  }
  return `project ${p.projectId} (organization ${p.orgId}): ${parts.join('; ')}`;
}

function describe(v: Verification, repaired: RepairResult | null): string {
  const lines = [`${v.stream} sequences ${v.fromSeq}–${v.toSeq}, applied through ${v.watermark}, ${v.projects.length} projects`];
  if (repaired)
    lines.push(`repair applied ${repaired.messages} messages again${repaired.rejected ? `, ${repaired.rejected} unreadable` : ''}`);
  const pending = v.projects.reduce((n, p) => n + p.pending, 0);
  if (pending) lines.push(`${pending} requests are still being applied`);
  for (const p of v.projects.filter((p) => !p.clean)) lines.push(describeProject(p));
  lines.push(
    v.clean
      ? 'clean: every stored request is applied and its rows are present'
      : `${v.projects.filter((p) => !p.clean).length} projects differ`,
  );
  return lines.join('\n');
}

export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description(
      `compare INGEST with the projections; exit ${VERIFY_DIFFERENCES_EXIT_CODE} when they differ (operator: DATABASE_URL / NATS_URL)`,
    )
    .option('--project <id>', 'one project only', uuidOption('--project', 'a project'))
    .option('--repair', 're-apply the stored requests that are missing from the projections (no webhook is called, no usage counted twice)')
    .option('--json', 'print JSON')
    .action(async (opts: { project?: string; repair?: boolean; json?: boolean }) => {
      const options = { projectId: opts.project };
      const { verification, repaired } = await withEventLog((nats) =>
        withDatabase(async (ds) => {
          await assertSchemaCurrent(ds);
          try {
            const first = await verifyTelemetry(ds, nats, options);
            if (!opts.repair || first.clean) return { verification: first, repaired: opts.repair ? { messages: 0, rejected: 0 } : null };
            const repair = await repairTelemetry(ds, nats, first, options);
            return { verification: await verifyTelemetry(ds, nats, options), repaired: repair };
          } catch (err) {
            if (err instanceof UnknownProjectError) throw new CliError(err.message);
            throw err;
          }
        }),
      );
      printResult({ ...verification, repaired }, !!opts.json, () => describe(verification, repaired));
      if (!verification.clean) process.exitCode = VERIFY_DIFFERENCES_EXIT_CODE;
    });
}
