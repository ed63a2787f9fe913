import { setTimeout as sleep } from 'node:timers/promises';
import { EXPORT_CSV_COLUMNS } from '@app/domain';
import type { Tenant } from '../../test/support/api';
import { nativeBatch } from '../../test/support/factories';
import { postBatches } from '../../test/support/large-trace';
import type { Stack } from '../../test/support/stack';
import { sampleRss } from '../process-stats';

/** Traces per ingest request: 1,000 events (a trace and its span each). */
const TRACES_PER_REQUEST = 500;

export interface ExportFigures {
  query: string;
  traces: number;
  megabytes: number;
  seconds: number;
  /** The API's resident memory before the export and its peak during it, sampled every 250 ms. */
  apiRssBeforeMb: number | null;
  apiPeakRssMb: number | null;
}

/** Writes `traces` traces of one span each and waits until Postgres holds them all. */
export async function writeExportTraces(stack: Stack, tenant: Tenant, traces: number, say: (line: string) => void): Promise<void> {
  const batches = [];
  for (let i = 0; i * TRACES_PER_REQUEST < traces; i++)
    batches.push(nativeBatch(Math.min(TRACES_PER_REQUEST, traces - i * TRACES_PER_REQUEST), 1, `bench-${i}`));
  await postBatches(stack.baseUrl, tenant.apiKey, batches);
  for (;;) {
    const [{ n }] = (await stack.db.query('SELECT count(*)::int AS n FROM traces WHERE project_id = $1', [tenant.projectId])).rows;
    if (n >= traces) return;
    say(`${n.toLocaleString('en-US')} of ${traces.toLocaleString('en-US')} traces visible`);
    await sleep(2_000);
  }
}

/**
 * One export read as a client would, as it comes: the trace ids of each line (JSONL) or trace
 * row (CSV; the bench's traces hold no comma, quote or line break, which the e2e test covers),
 * each of which must come exactly once, `traces` in all, and the API's peak memory meanwhile.
 */
export async function measureExport(stack: Stack, tenant: Tenant, query: string, traces: number): Promise<ExportFigures> {
  const pid = stack.pid('api');
  if (pid === null) throw new Error('the API is not running');
  const rss = sampleRss(pid);
  const apiRssBeforeMb = rss.maxMb();
  const t0 = performance.now();
  const res = await fetch(`${stack.baseUrl}/api/v1/traces/export?${query}`, { headers: { authorization: `Bearer ${tenant.apiKey}` } });
  if (!res.ok || !res.body) throw new Error(`export ${query} answered ${res.status}: ${await res.text()}`);
  const csv = query.includes('format=csv');
  const idColumn = EXPORT_CSV_COLUMNS.indexOf('externalId');
  const seen = new Set<string>();
  let bytes = 0;
  let pending = '';
  let header = csv;
  const take = (line: string) => {
    if (!line) return;
    if (header) {
      header = false;
      return;
    }
    const id = csv ? line.split(',')[idColumn] : (JSON.parse(line) as { externalId: string }).externalId;
    if (csv && !line.startsWith('trace,')) return;
    if (seen.has(id)) throw new Error(`export ${query}: trace ${id} came twice`);
    seen.add(id);
  };
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    bytes += chunk.byteLength;
    pending += decoder.decode(chunk, { stream: true });
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) take(line.replace(/\r$/, ''));
  }
  take(pending);
  const seconds = (performance.now() - t0) / 1_000;
  rss.stop();
  if (seen.size !== traces) throw new Error(`export ${query}: ${seen.size} traces of ${traces}`);
  return { query, traces: seen.size, megabytes: bytes / 1024 / 1024, seconds, apiRssBeforeMb, apiPeakRssMb: rss.maxMb() };
}
