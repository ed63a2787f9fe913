import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsMsg } from 'nats';
import { INGEST_SCHEMAS, envelopeToHeaders } from '@app/domain';
import { toNatsHeaders } from '@app/eventlog';
import type { RowsWritten } from '../rows-live-may-lack';
import { telemetryRebuildPreparer } from './rebuild-preparer';
import { REBUILD_WORKER_ENTRY, RebuildWorkerPool } from './rebuild-worker-pool';

const projectId = randomUUID();
const orgId = randomUUID();
const message = (seq: number, body: unknown): JsMsg => {
  const envelope = envelopeToHeaders({
    schema: INGEST_SCHEMAS.nativeBatch,
    orgId,
    projectId,
    apiKeyId: randomUUID(),
    receivedAt: '2026-11-27T12:00:00.000Z',
    requestId: randomUUID(),
    chunkIndex: 0,
    chunkCount: 1,
  });
  return { seq, headers: toNatsHeaders(envelope), data: new TextEncoder().encode(JSON.stringify(body)) } as JsMsg;
};
const trace = (id: string) => ({
  batch: [
    { id: `${id}-t`, type: 'trace-create', timestamp: '2026-11-27T12:00:00.000Z', body: { id, name: 'a trace' } },
    {
      id: `${id}-s`,
      type: 'span-create',
      timestamp: '2026-11-27T12:00:00.000Z',
      body: { id: `${id}-span`, traceId: id, name: 'a span', startTime: '2026-11-27T12:00:00.000Z' },
    },
  ],
});

describe('the telemetry rebuild preparer', () => {
  const context = (liveFloor: number, seen: RowsWritten[]) => ({
    chunks: { read: async (msg: Pick<JsMsg, 'data'>) => msg.data },
    prices: { pricesOf: async () => new Map() },
    setup: { liveFloor, deadLettered: [] },
    onLiveMayLack: (rows: RowsWritten) => void seen.push(rows),
  });

  it('decodes in its own thread, saying so, when there is no compiled worker module (TypeScript, as here)', async () => {
    const warned: string[] = [];
    const preparer = telemetryRebuildPreparer({ workers: 3, warn: (m) => warned.push(m) }, context(0, []));
    expect(REBUILD_WORKER_ENTRY.endsWith('.js')).toBe(true);
    expect(preparer.workers).toBe(0);
    expect(warned).toEqual([
      `no compiled rebuild worker at ${REBUILD_WORKER_ENTRY} (running from TypeScript); decoding in this thread instead of 3`,
    ]);
    await preparer.close();
  });

  it('decodes in its own thread without a word when told 0, preparing the batch and skipping what can never apply', async () => {
    const warned: string[] = [];
    const seen: RowsWritten[] = [];
    const preparer = telemetryRebuildPreparer({ workers: 0, warn: (m) => warned.push(m) }, context(1, seen));
    const { batch, skipped } = await preparer.prepare([
      message(1, trace('before')),
      message(2, { batch: 'not a list' }),
      message(3, trace('after')),
    ]);
    expect(warned).toEqual([]);
    expect(skipped).toEqual([{ seq: 2, reason: expect.stringContaining('ingest.batch/v1 data rejected') }]);
    expect(batch?.seqs).toEqual([1, 3]);
    expect(JSON.parse(batch?.telemetry.rows.spans ?? '[]')).toHaveLength(2);
    // Only the message past the live watermark may have rows the live tables lack.
    expect(seen).toEqual([{ orgId, traces: expect.any(Array), spans: [[projectId, expect.any(String)]] }]);
  });

  it('fails the batch, and every one after it, when a worker thread fails, rather than decode it another way', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rebuild-worker-'));
    const entry = join(dir, 'failing-worker.js');
    writeFileSync(entry, "require('node:worker_threads').parentPort.on('message', () => { throw new Error('decoder broke'); });");
    const pool = new RebuildWorkerPool(1, context(0, []), entry);
    try {
      await expect(pool.prepare([message(1, trace('a'))])).rejects.toThrow('decoder broke');
      await expect(pool.prepare([message(2, trace('b'))])).rejects.toThrow('decoder broke');
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true });
    }
  });
});
