import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';

/** One scenario's outcome, in rows: what the fault suite prints and the lead quotes. */
export interface ScenarioResult {
  scenario: string;
  /** Spans of every request sent at least once. */
  sent: number;
  acknowledged: number;
  stored: number;
  lost: number;
  duplicates: number;
  storedUnacknowledged: number;
  /** Attempts the API answered 503. */
  answered503: number;
  deadLettered: number;
  /** Spans the organization's usage counters hold, and what they must hold: every row ever stored, once. */
  usageCounted: number;
  usageExpected: number;
  /** Spans retention had to delete, and how many of them are still stored. */
  expired: number;
  expiredRemaining: number;
  /** `spanlog verify --json`: true only when it answered `clean: true` and exited 0. */
  verifyClean: boolean;
  verifyOutput: string;
  /** The smallest backlog (acknowledged spans not yet in rows) at the moment a fault struck. */
  backlogAtFault: number;
  faults: number;
  seconds: number;
  /** Anything else the scenario measured (rates, restarts). */
  notes: Record<string, unknown>;
  statuses: Record<string, number>;
}

const COLUMNS: [string, (r: ScenarioResult) => string][] = [
  ['scenario', (r) => r.scenario],
  ['spans sent', (r) => int(r.sent)],
  ['acked', (r) => int(r.acknowledged)],
  ['stored', (r) => int(r.stored)],
  ['lost', (r) => int(r.lost)],
  ['duplicates', (r) => int(r.duplicates)],
  ['503s', (r) => int(r.answered503)],
  ['dead-lettered', (r) => int(r.deadLettered)],
  ['usage = stored', (r) => (r.usageCounted === r.usageExpected ? 'yes' : `no (${int(r.usageCounted)} of ${int(r.usageExpected)})`)],
  ['expired left', (r) => (r.expired ? `${int(r.expiredRemaining)} of ${int(r.expired)}` : '')],
  ['verify clean', (r) => (r.verifyClean ? 'yes' : 'NO')],
  ['backlog at fault', (r) => int(r.backlogAtFault)],
  ['s', (r) => int(r.seconds)],
];

const int = (n: number): string => Math.round(n).toLocaleString('en-US');

export function renderTable(results: ScenarioResult[]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(COLUMNS.map(([h]) => h)),
    line(COLUMNS.map(() => '---')),
    ...results.map((r) => line(COLUMNS.map(([, cell]) => cell(r)))),
  ].join('\n');
}

/** Written whole or not at all (a .tmp file renamed), as the bench writes its results. */
export function writeResults(path: string, results: ScenarioResult[], startedAt: Date, conditions: Record<string, unknown>): void {
  const document = {
    startedAt: startedAt.toISOString(),
    durationS: (Date.now() - startedAt.getTime()) / 1_000,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
      node: process.versions.node,
      loadAvgAtEnd: loadavg()[0],
    },
    conditions,
    scenarios: results,
  };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, `${JSON.stringify(document, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

export const FAULTS_RESULTS = resolve(__dirname, '..', '..', 'bench', 'results', 'faults-latest.json');
