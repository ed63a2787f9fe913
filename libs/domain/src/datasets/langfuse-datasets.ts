import type { JsonObject, JsonValue } from '../json/types';
import type { Dataset, DatasetItem, DatasetItemStatus, DatasetRun, DatasetRunItem } from './dataset';

// Langfuse's public API shapes for datasets (`@langfuse/core`'s Dataset, DatasetItem,
// DatasetRun, DatasetRunItem), so its clients read ours unchanged. A span is an "observation".

export interface LangfuseDataset {
  id: string;
  name: string;
  description: string | null;
  metadata: JsonObject | null;
  inputSchema: null;
  expectedOutputSchema: null;
  projectId: string;
  createdAt: string;
  updatedAt: string;
}

export interface LangfuseDatasetItem {
  id: string;
  status: DatasetItemStatus;
  input: JsonValue | null;
  expectedOutput: JsonValue | null;
  metadata: JsonValue | null;
  sourceTraceId: string | null;
  sourceObservationId: string | null;
  datasetId: string;
  datasetName: string;
  createdAt: string;
  updatedAt: string;
  mediaReferences: never[];
}

export interface LangfuseDatasetRun {
  id: string;
  name: string;
  description: string | null;
  metadata: JsonObject | null;
  datasetId: string;
  datasetName: string;
  createdAt: string;
  updatedAt: string;
}

export interface LangfuseDatasetRunItem {
  id: string;
  datasetRunId: string;
  datasetRunName: string;
  datasetItemId: string;
  traceId: string;
  observationId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Langfuse's page meta: `page` from 1, and the pages there are. */
export interface LangfusePageMeta {
  page: number;
  limit: number;
  totalItems: number;
  totalPages: number;
}

export const langfusePageMeta = (page: number, limit: number, totalItems: number): LangfusePageMeta => ({
  page,
  limit,
  totalItems,
  totalPages: Math.ceil(totalItems / limit),
});

export const toLangfuseDataset = (d: Dataset, projectId: string): LangfuseDataset => ({
  ...d,
  inputSchema: null,
  expectedOutputSchema: null,
  projectId,
});

export const toLangfuseDatasetItem = ({ sourceSpanId, ...item }: DatasetItem): LangfuseDatasetItem => ({
  ...item,
  sourceObservationId: sourceSpanId,
  mediaReferences: [],
});

export const toLangfuseDatasetRun = (run: DatasetRun): LangfuseDatasetRun => run;

/** A run item's trace and span as the client named them back: the OTel hex ids when the trace is an OTel one. */
export const toLangfuseDatasetRunItem = ({ spanId, ...item }: DatasetRunItem): LangfuseDatasetRunItem => ({
  ...item,
  observationId: spanId,
  updatedAt: item.createdAt,
});
