import { setImmediate } from 'node:timers/promises';
import type { DataSource, QueryRunner } from 'typeorm';
import { ChunkReader, type NatsResources, consumerAckFloor, replayStream, streamLastSeq } from '@app/eventlog';
import { ProjectionCheckpoints } from '@app/persistence';
import { type ExpectedRow, ExpectedRows, type ProjectRowCounts, ROW_TABLES } from './tables/expected-rows';
import { decodeStored } from '../projection';
import type { DecodedIngestMessage } from './decode-ingest-message';
import { projectSubjects } from './project-subjects';
import { applyTelemetryBatch, telemetryPosition, telemetryProjection } from './telemetry.projection';
import { ProjectPriceTables } from './project-prices';

/** Sequences listed per project and kind; the counts are always whole. */
const LISTED_SEQS = 100;
/** Messages read per batch, and re-applied per transaction by a repair. */
const READ_BATCH = 256;
const REPAIR_BATCH = 64;

export interface VerifyOptions {
  /** One project only (its organization is looked up). */
  projectId?: string;
  /** First and last stream sequence to check; the whole stream by default. */
  fromSeq?: number;
  toSeq?: number;
  /** Sequences listed per project and kind (LISTED_SEQS by default). */
  listed?: number;
}

export interface ProjectVerification extends ProjectRowCounts {
  orgId: string;
  projectId: string;
  /** Requests (and retention deletions) the stream holds for the project in the range read. */
  messages: number;
  applied: number;
  /** Not applied yet, still with the projection's consumer: not a difference. */
  pending: number;
  /** Not applied, and the consumer will not deliver them again. */
  unapplied: SeqList;
  /** Stored messages the projection cannot read (dead-lettered when live). */
  rejected: SeqList;
  /** Messages that write a row that is missing. */
  writingMissingRows: SeqList;
  clean: boolean;
}

export interface SeqList {
  count: number;
  /** The first LISTED_SEQS of them. */
  seqs: number[];
}

export interface Verification {
  clean: boolean;
  stream: string;
  /** The range read. */
  fromSeq: number;
  toSeq: number;
  /** Every sequence at or below it is applied, dead-lettered or no longer stored. */
  watermark: number;
  projects: ProjectVerification[];
}

export interface RepairResult {
  /** Messages applied again through the live projection's code (no webhook called). */
  messages: number;
  /** Those that could not be read and stay rejected. */
  rejected: number;
}

/**
 * Compares what INGEST holds with what the telemetry projection holds (issue 12): per project,
 * the stored requests applied, and the traces, spans and scores their messages write (those of
 * deleted traces excepted) against the rows. Reads every message in the range once, holding
 * only one batch in memory; the expected ids go to a temporary table.
 */
export async function verifyTelemetry(ds: DataSource, nats: NatsResources, options: VerifyOptions = {}): Promise<Verification> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    return await verifyOn(runner, nats, options);
  } finally {
    await runner.release();
  }
}

/**
 * Applies again, through the live projection's code, the messages `verification` found never
 * applied (their usage is counted now: it never was) or writing rows that are missing (applied
 * and counted before: not counted again). No webhook is called.
 */
export async function repairTelemetry(
  ds: DataSource,
  nats: NatsResources,
  verification: Verification,
  options: VerifyOptions = {},
): Promise<RepairResult> {
  let projects = verification.projects;
  // The lists are cut at LISTED_SEQS: then the full lists are made once more.
  if (projects.some((p) => p.unapplied.count > p.unapplied.seqs.length || p.writingMissingRows.count > p.writingMissingRows.seqs.length)) {
    projects = (await verifyTelemetry(ds, nats, { ...options, listed: Number.MAX_SAFE_INTEGER })).projects;
  }
  const neverApplied = new Set(projects.flatMap((p) => p.unapplied.seqs));
  const wanted = new Set([...neverApplied, ...projects.flatMap((p) => p.writingMissingRows.seqs)]);
  const result: RepairResult = { messages: 0, rejected: 0 };
  if (!wanted.size) return result;
  const position = telemetryPosition(nats);
  const chunks = new ChunkReader(nats.js, nats.layout);
  const prices = new ProjectPriceTables(ds);
  const pending = { counted: [] as DecodedIngestMessage[], recreated: [] as DecodedIngestMessage[] };
  const flush = async (kind: keyof typeof pending, atLeast: number) => {
    const items = pending[kind];
    if (!items.length || items.length < atLeast) return;
    pending[kind] = [];
    await applyTelemetryBatch(ds, position, await telemetryProjection.prepare(items, { prices }), {
      scheduleEvaluations: false,
      countUsage: kind === 'counted',
    });
    result.messages += items.length;
  };
  const sorted = [...wanted].sort((a, b) => a - b);
  const range = {
    fromSeq: sorted[0],
    toSeq: sorted[sorted.length - 1],
    batchSize: READ_BATCH,
    filterSubject: options.projectId === undefined ? undefined : await projectSubjects(ds, nats, options.projectId),
  };
  await replayStream(nats, 'ingest', range, async (msgs) => {
    for (const msg of msgs) {
      if (!wanted.has(msg.seq)) continue;
      const decoded = await decodeStored(telemetryProjection, msg, { chunks });
      if (!decoded.ok) {
        result.rejected++;
        continue;
      }
      const kind = neverApplied.has(msg.seq) ? 'counted' : 'recreated';
      pending[kind].push(decoded.event);
      await flush(kind, REPAIR_BATCH);
    }
  });
  await flush('counted', 1);
  await flush('recreated', 1);
  return result;
}

async function verifyOn(runner: QueryRunner, nats: NatsResources, options: VerifyOptions): Promise<Verification> {
  const listed = options.listed ?? LISTED_SEQS;
  const position = telemetryPosition(nats);
  // The ack floor first: a message acknowledged by then was recorded as applied by then.
  const ackFloor = await consumerAckFloor(nats, 'ingest', telemetryProjection.source.consumer);
  const checkpoints = new ProjectionCheckpoints(runner.manager);
  const watermark = await checkpoints.appliedThrough(position);
  const appliedAbove = new Set(await checkpoints.appliedAboveWatermark(position));
  const isApplied = (seq: number) => seq <= watermark || appliedAbove.has(seq);
  const fromSeq = options.fromSeq ?? 1;
  const toSeq = options.toSeq ?? (await streamLastSeq(nats, 'ingest'));
  const wholeStream = fromSeq <= 1 && options.toSeq === undefined;

  const projects = new Map<
    string,
    { orgId: string; messages: number; applied: number; pending: number; unapplied: number[]; rejected: number[] }
  >();
  const projectOf = (orgId: string, projectId: string) => {
    let p = projects.get(projectId);
    if (!p) projects.set(projectId, (p = { orgId, messages: 0, applied: 0, pending: 0, unapplied: [], rejected: [] }));
    return p;
  };
  const expected = await ExpectedRows.open(runner);
  try {
    const chunks = new ChunkReader(nats.js, nats.layout);
    const filterSubject = options.projectId === undefined ? undefined : await projectSubjects(runner.manager, nats, options.projectId);
    await replayStream(nats, 'ingest', { fromSeq, toSeq, batchSize: READ_BATCH, filterSubject }, async (msgs) => {
      for (const msg of msgs) {
        if (msg.seq > toSeq) break;
        await setImmediate();
        const [, orgId, projectId] = msg.subject.slice(nats.layout.subjectRoot('ingest').length).split('.');
        const project = projectOf(orgId, projectId);
        project.messages++;
        if (isApplied(msg.seq)) project.applied++;
        else if (msg.seq > ackFloor) project.pending++;
        else project.unapplied.push(msg.seq);
        const decoded = await decodeStored(telemetryProjection, msg, { chunks });
        if (!decoded.ok) project.rejected.push(msg.seq);
        else await expected.add(expectedRowsOf(decoded.event));
      }
    });
    await expected.seal();
    const projectIds = options.projectId
      ? [options.projectId]
      : [...new Set([...projects.keys(), ...(wholeStream ? await ExpectedRows.projectsWithRows(runner) : [])])];
    const counts = await expected.compare(projectIds, wholeStream);
    const missingSeqs = await expected.seqsWritingMissingRows();
    const orgs = await orgsOf(runner, projectIds);
    const list = (seqs: number[]): SeqList => ({ count: seqs.length, seqs: seqs.slice(0, listed) });
    const report: ProjectVerification[] = projectIds.map((projectId) => {
      const p = projects.get(projectId) ?? {
        orgId: orgs.get(projectId) ?? '',
        messages: 0,
        applied: 0,
        pending: 0,
        unapplied: [],
        rejected: [],
      };
      const rows = counts.get(projectId) as ProjectRowCounts;
      const missing = missingSeqs.get(projectId) ?? [];
      const clean = !p.unapplied.length && !p.rejected.length && ROW_TABLES.every((t) => rows[t].missing === 0 && !rows[t].extra);
      return {
        orgId: p.orgId || (orgs.get(projectId) ?? ''),
        projectId,
        messages: p.messages,
        applied: p.applied,
        pending: p.pending,
        unapplied: list(p.unapplied),
        rejected: list(p.rejected),
        writingMissingRows: list(missing),
        ...rows,
        clean,
      };
    });
    return { clean: report.every((p) => p.clean), stream: position.stream, fromSeq, toSeq, watermark, projects: report };
  } finally {
    await expected.close();
  }
}

function expectedRowsOf({ seq, facts }: DecodedIngestMessage): ExpectedRow[] {
  return [
    ...facts.traces.map((t) => ({ projectId: t.projectId, table: 'traces' as const, id: t.id, traceId: t.id, seq })),
    ...facts.spans.map((s) => ({ projectId: s.projectId, table: 'spans' as const, id: s.id, traceId: s.values.traceId ?? null, seq })),
    ...facts.scores.map((s) => ({ projectId: s.projectId, table: 'scores' as const, id: s.id, traceId: s.values.traceId ?? null, seq })),
  ];
}

async function orgsOf(runner: QueryRunner, projectIds: string[]): Promise<Map<string, string>> {
  const rows: { id: string; org_id: string }[] = await runner.query('SELECT id, org_id FROM projects WHERE id = ANY($1::uuid[])', [
    projectIds,
  ]);
  return new Map(rows.map((r) => [r.id, r.org_id]));
}
