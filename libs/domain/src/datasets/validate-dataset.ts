import { v4 as uuidv4 } from 'uuid';
import { DomainError, validationError } from '../errors';
import { sanitizeJson } from '../json/sanitize';
import { type JsonObject, type JsonValue, isJsonObject } from '../json/types';
import { DATASET_LIMITS as LIMITS } from '../limits';
import {
  Optional,
  Required,
  anyJson,
  decimalInteger,
  jsonObject,
  oneOf,
  requiredText,
  storedText,
  timestamp,
  validateDto,
} from '../validation';
import { DATASET_ITEM_STATUSES, type DatasetInput, type DatasetItemInput, type DatasetItemStatus, type RunItemInput } from './dataset';

const name = requiredText(LIMITS.nameLength);
const description = storedText(0, LIMITS.descriptionLength);
const itemId = requiredText(LIMITS.itemIdLength);
/** Trace and span ids as any route takes them (CONTRACT "Id mapping"); mapped when read. */
const telemetryId = requiredText(256);

/** The body of POST /api/v1/datasets and of Langfuse's POST /api/public/v2/datasets (its schema fields are not kept). */
export class DatasetBody {
  @Required(name) name: string;
  @Optional(description) description?: string;
  @Optional(jsonObject) metadata?: JsonObject;
}

/** One item of POST /api/v1/datasets/{name}/items. */
export class DatasetItemBody {
  @Optional(itemId) id?: string;
  @Optional(anyJson) input?: JsonValue;
  @Optional(anyJson) expectedOutput?: JsonValue;
  @Optional(anyJson) metadata?: JsonValue;
  @Optional(telemetryId) sourceTraceId?: string;
  @Optional(telemetryId) sourceSpanId?: string;
  @Optional(oneOf(DATASET_ITEM_STATUSES)) status?: DatasetItemStatus;
}

/** Langfuse's POST /api/public/dataset-items: the dataset by name, the span as an "observation". */
export class LangfuseDatasetItemBody {
  @Required(name) datasetName: string;
  @Optional(itemId) id?: string;
  @Optional(anyJson) input?: JsonValue;
  @Optional(anyJson) expectedOutput?: JsonValue;
  @Optional(anyJson) metadata?: JsonValue;
  @Optional(telemetryId) sourceTraceId?: string;
  @Optional(telemetryId) sourceObservationId?: string;
  @Optional(oneOf(DATASET_ITEM_STATUSES)) status?: DatasetItemStatus;
}

/** Langfuse's POST /api/public/dataset-run-items; `datasetVersion` and `createdAt` are accepted and not kept. */
export class RunItemBody {
  @Required(name) runName: string;
  @Optional(description) runDescription?: string;
  @Optional(jsonObject) metadata?: JsonObject;
  @Required(itemId) datasetItemId: string;
  @Required(telemetryId) traceId: string;
  @Optional(telemetryId) observationId?: string;
  @Optional(timestamp) datasetVersion?: string;
}

/** A list page as Langfuse's list routes take it: `page` from 1, `limit`. */
export class PageQuery {
  @Optional(decimalInteger({ min: 1, max: 1_000_000 })) page?: number;
  @Optional(decimalInteger(LIMITS.list)) limit?: number;
}

/** Langfuse's GET /api/public/dataset-items: a page of one dataset's items, as they were at `version` when given. */
export class LangfuseItemListQuery extends PageQuery {
  @Required(name) datasetName: string;
  @Optional(timestamp) version?: string;
}

/** GET /api/v1/datasets/{name}/items: a page of items, as they were at `version` when given. */
export class ItemListQuery extends PageQuery {
  @Optional(timestamp) version?: string;
}

/**
 * A route's path naming a dataset (`/api/v1/datasets/{name}…`, Langfuse's `/v2/datasets/{name}`):
 * a name that could be stored, or a 400 naming the parameter, before a query Postgres would
 * refuse (NUL, BAD_INPUTS 5).
 */
export class DatasetPath {
  @Required(name) name: string;
}

/** `/api/v1/datasets/{name}/runs/{runName}`. */
export class DatasetRunPath extends DatasetPath {
  @Required(name) runName: string;
}

/** Langfuse's `/api/public/datasets/{datasetName}/runs`. */
export class LangfuseDatasetRunsPath {
  @Required(name) datasetName: string;
}

/** Langfuse's `/api/public/datasets/{datasetName}/runs/{runName}`. */
export class LangfuseDatasetRunPath extends LangfuseDatasetRunsPath {
  @Required(name) runName: string;
}

/** Langfuse's `/api/public/dataset-items/{id}`. */
export class DatasetItemPath {
  @Required(itemId) id: string;
}

/** GET /api/v1/datasets/{name}/runs/{runName}: a page of the run's items (all by default, up to 1,000). */
export class RunResultsQuery {
  @Optional(decimalInteger({ min: 1, max: 1_000_000 })) page?: number;
  @Optional(decimalInteger(LIMITS.runItemsPage)) limit?: number;
}

function checked<T extends object>(cls: new () => T, value: unknown, path: string): T {
  if (!isJsonObject(value)) throw validationError(`${path || 'body'}: must be an object`);
  const result = validateDto(cls, value, path);
  if (!result.ok) throw validationError(result.message);
  return result.value;
}

export function validateDatasetInput(body: unknown): DatasetInput {
  const { name, description, metadata } = checked(DatasetBody, body, '');
  return { name, description, metadata: metadata && sanitizeJson(metadata) };
}

/** 413 for an item whose content is over DATASET_LIMITS.itemBytes, naming it. */
function assertItemWithin(item: Omit<DatasetItemInput, 'id' | 'status'>, path: string): void {
  const bytes = Buffer.byteLength(JSON.stringify([item.input, item.expectedOutput, item.metadata]));
  if (bytes > LIMITS.itemBytes)
    throw new DomainError(
      'PAYLOAD_TOO_LARGE',
      `${path}: is ${bytes} bytes of input, expectedOutput and metadata; at most ${LIMITS.itemBytes} are allowed`,
    );
}

/** An item as stored: a new id when the client gave none, NUL and lone surrogates replaced as in any stored JSON. */
export function datasetItemOf(body: Omit<DatasetItemBody, 'sourceSpanId'> & { sourceSpanId?: string }, path: string): DatasetItemInput {
  const item = {
    input: body.input === undefined ? null : sanitizeJson(body.input),
    expectedOutput: body.expectedOutput === undefined ? null : sanitizeJson(body.expectedOutput),
    metadata: body.metadata === undefined ? null : sanitizeJson(body.metadata),
    sourceTraceId: body.sourceTraceId ?? null,
    sourceSpanId: body.sourceSpanId ?? null,
  };
  assertItemWithin(item, path);
  return { id: body.id ?? uuidv4(), status: body.status ?? 'ACTIVE', ...item };
}

/**
 * The body of POST /api/v1/datasets/{name}/items: one item, or `{ items: [...] }` of up to
 * DATASET_LIMITS.itemsPerRequest (413 past it, as for a batch). All or nothing: a 400 names
 * the first field at fault, a 413 the first item over DATASET_LIMITS.itemBytes. An id given
 * twice keeps its last item.
 */
export function validateDatasetItemsRequest(body: unknown): DatasetItemInput[] {
  if (!isJsonObject(body)) throw validationError('body must be an item object or an object with an "items" array');
  if (!Object.hasOwn(body, 'items')) return [datasetItemOf(checked(DatasetItemBody, body, ''), 'body')];
  const { items } = body;
  if (!Array.isArray(items)) throw validationError('items: must be an array');
  if (items.length > LIMITS.itemsPerRequest)
    throw new DomainError('PAYLOAD_TOO_LARGE', `items has ${items.length} items; at most ${LIMITS.itemsPerRequest} are allowed`);
  const read = items.map((item, i) => datasetItemOf(checked(DatasetItemBody, item, `items[${i}]`), `items[${i}]`));
  return [...new Map(read.map((item) => [item.id, item])).values()];
}

/**
 * Every item's first fault, by index, and nothing stored: what an import lists before it
 * sends any item (the dashboard's `dataset.checkItems`), by the rules of a push.
 */
export function datasetItemsProblems(items: unknown[]): { index: number; message: string }[] {
  if (items.length > LIMITS.itemsPerRequest)
    throw new DomainError('PAYLOAD_TOO_LARGE', `items has ${items.length} items; at most ${LIMITS.itemsPerRequest} are allowed`);
  return items.flatMap((item, index) => {
    try {
      datasetItemOf(checked(DatasetItemBody, item, ''), 'item');
      return [];
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      return [{ index, message: err.message }];
    }
  });
}

/** Langfuse's item body: its dataset's name, and the item. */
export function validateLangfuseDatasetItem(body: unknown): { datasetName: string; item: DatasetItemInput } {
  const { datasetName, sourceObservationId, ...rest } = checked(LangfuseDatasetItemBody, body, '');
  return { datasetName, item: datasetItemOf({ ...rest, sourceSpanId: sourceObservationId }, 'body') };
}

export function validateRunItemBody(body: unknown): RunItemInput {
  const { runName, runDescription, metadata, datasetItemId, traceId, observationId } = checked(RunItemBody, body, '');
  return { runName, runDescription, metadata: metadata && sanitizeJson(metadata), datasetItemId, traceId, spanId: observationId };
}
