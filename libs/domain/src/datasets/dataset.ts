import type { JsonObject, JsonValue } from '../json/types';

export const DATASET_ITEM_STATUSES = ['ACTIVE', 'ARCHIVED'] as const;
export type DatasetItemStatus = (typeof DATASET_ITEM_STATUSES)[number];

/** A project's dataset: configuration, kept whatever the plan's retention. */
export interface Dataset {
  id: string;
  name: string;
  description: string | null;
  metadata: JsonObject | null;
  createdAt: string;
  updatedAt: string;
}

/** A dataset created or changed by POST; a field left out keeps what the dataset had. */
export interface DatasetInput {
  name: string;
  description?: string;
  metadata?: JsonObject;
}

/** What an item states; the id is the client's, else one the server gives it. */
export interface DatasetItemInput {
  id: string;
  input: JsonValue | null;
  expectedOutput: JsonValue | null;
  metadata: JsonValue | null;
  sourceTraceId: string | null;
  sourceSpanId: string | null;
  status: DatasetItemStatus;
}

/** An item as it was at some time: its newest version then. */
export interface DatasetItem extends DatasetItemInput {
  datasetId: string;
  datasetName: string;
  createdAt: string;
  /** When this version was written (the `version` a reader asks for is a time at or after it). */
  updatedAt: string;
}

export interface DatasetRun {
  id: string;
  name: string;
  description: string | null;
  metadata: JsonObject | null;
  datasetId: string;
  datasetName: string;
  createdAt: string;
  updatedAt: string;
}

/** A link from a dataset item to the trace (and span) a run produced for it. */
export interface DatasetRunItem {
  id: string;
  datasetRunId: string;
  datasetRunName: string;
  datasetItemId: string;
  traceId: string;
  spanId: string | null;
  createdAt: string;
}

/** A run item as the API takes it: the run by name (created or updated with it) and the trace by any of its ids. */
export interface RunItemInput {
  runName: string;
  runDescription?: string;
  metadata?: JsonObject;
  datasetItemId: string;
  traceId: string;
  spanId?: string;
}
