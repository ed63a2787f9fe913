import type { ModelDefinition, ScoreDeletion, ScoreDelta, TraceDeletion } from '@app/domain';
import type { SkippedMessage } from '../../rebuild/batch-preparer';
import type { SpanKey } from '../merged-costs';
import type { MentionedTraces } from '../tables/deleted-traces';
import type { PreparedTelemetry } from '../tables/telemetry-writer';
import type { LiveMayLack, RowsWritten } from '../rows-live-may-lack';

/**
 * What crosses between a telemetry rebuild and its worker threads (structured clone): the
 * messages' bytes in, the serialized rows and the little the write and the swap read out.
 */

/** A worker's `workerData`. */
export type WorkerSetup = LiveMayLack;

/** One stored message of a batch: its bytes are `data.subarray(start, end)` of the batch's buffer. */
export interface PackedMessage {
  seq: number;
  /** The message's headers, each name's first value (all `headerReader` reads). */
  headers: Record<string, string>;
  start: number;
  end: number;
  /** Why its chunk could not be read from the object store (the main thread reads them). */
  chunkError?: string;
}

/** Main → worker: decode and prepare a whole batch. The buffer is transferred. */
export interface BatchJob {
  type: 'batch';
  job: number;
  data: Uint8Array<ArrayBuffer>;
  messages: PackedMessage[];
}

/** A project's prices, as the worker compiles them. */
export interface ProjectDefinitions {
  projectId: string;
  version: number;
  definitions: readonly ModelDefinition[];
}

/** Worker → main: the prices of these projects, as they are now. */
export interface PricesAsked {
  type: 'prices';
  job: number;
  projectIds: string[];
}

/** Main → worker: the answer to `PricesAsked`. */
export interface PricesGiven {
  type: 'prices';
  job: number;
  prices: ProjectDefinitions[];
}

/** The batch as the write reads it; the facts only in part (see `PreparedTelemetry.facts`). */
export interface PreparedInWorker {
  rows: PreparedTelemetry['rows'];
  mentioned: MentionedTraces;
  scores: ScoreDelta[];
  deletions: TraceDeletion[];
  scoreDeletions: ScoreDeletion[];
  orgOf: [projectId: string, orgId: string][];
  seqs: number[];
  /** The price version of each project the batch's spans were priced with (the tables themselves stay on the main thread). */
  pricedWith: [projectId: string, version: number][];
  /** What `priceMergedSpans` needs of the batch's spans: their number, and those whose merged row may price otherwise. */
  spansToPrice: { count: number; candidates: SpanKey[] };
}

/** Worker → main: a batch done. */
export interface BatchDone {
  type: 'done';
  job: number;
  batch: PreparedInWorker | null;
  skipped: SkippedMessage[];
  /** The rows of the messages whose rows the live tables may lack (`LiveMayLack`). */
  liveMayLack: RowsWritten[];
}

/** Worker → main: a batch failed for a reason other than a message that can never be applied. */
export interface BatchFailed {
  type: 'failed';
  job: number;
  error: string;
}

export type ToWorker = BatchJob | PricesGiven;
export type FromWorker = PricesAsked | BatchDone | BatchFailed;
