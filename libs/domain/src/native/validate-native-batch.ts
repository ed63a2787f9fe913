import { DomainError, validationError } from '../errors';
import { isNativeId } from '../ids';
import { isJsonObject } from '../json/types';
import { MAX_BATCH_EVENTS } from '../limits';
import { NATIVE_EVENT_BODIES, NativeEventEnvelope, type NativeEventBody, type NativeEventType } from './native-events.dto';
import { validateDto } from '../validation';

/**
 * An accepted event: its place in the batch, its id, type, time and typed body. Timestamps
 * in the body are UTC ISO strings; null and unknown fields are gone.
 */
export type ValidNativeEvent = {
  [T in NativeEventType]: { index: number; id: string; type: T; timestampMs: number; body: NativeEventBody<T> };
}[NativeEventType];

/** One refused event, as listed in the 201 answer (CONTRACT "Native batch events"). */
export interface NativeEventError {
  index: number;
  id: string | null;
  code: 'VALIDATION_ERROR';
  message: string;
}

export interface NativeBatchValidation {
  events: ValidNativeEvent[];
  errors: NativeEventError[];
}

function validateEvent(raw: unknown, index: number): ValidNativeEvent | NativeEventError {
  const path = `batch[${index}]`;
  const refuse = (id: string | null, message: string): NativeEventError => ({ index, id, code: 'VALIDATION_ERROR', message });
  if (!isJsonObject(raw)) return refuse(null, `${path}: must be an object`);
  const id = Object.hasOwn(raw, 'id') && isNativeId(raw.id) ? raw.id : null;
  const envelope = validateDto(NativeEventEnvelope, raw, path);
  if (!envelope.ok) return refuse(id, envelope.message);
  const { type, timestamp, body } = envelope.value;
  const checked = validateDto<object>(NATIVE_EVENT_BODIES[type], body, `${path}.body`);
  if (!checked.ok) return refuse(id, checked.message);
  // The body class was picked by `type`, which TypeScript cannot follow through the lookup.
  return { index, id: envelope.value.id, type, timestampMs: Date.parse(timestamp), body: checked.value } as ValidNativeEvent;
}

/**
 * Checks a native batch (SPEC 4.1, CONTRACT "Native batch events"). Only a body that is not
 * a batch, or a batch that is too large, is refused as a whole; otherwise each event is
 * accepted or reported on its own. Pure and deterministic: the processor runs it again on
 * the stored bytes, and projects exactly the events the API counted as accepted.
 */
export function validateNativeBatch(body: unknown): NativeBatchValidation {
  if (!isJsonObject(body) || !Array.isArray(body.batch)) throw validationError('body must be an object with a "batch" array');
  const { batch } = body;
  if (batch.length > MAX_BATCH_EVENTS) {
    throw new DomainError('PAYLOAD_TOO_LARGE', `batch has ${batch.length} events; at most ${MAX_BATCH_EVENTS} are allowed`);
  }
  const result: NativeBatchValidation = { events: [], errors: [] };
  for (let index = 0; index < batch.length; index++) {
    const checked = validateEvent(batch[index], index);
    if ('code' in checked) result.errors.push(checked);
    else result.events.push(checked);
  }
  return result;
}
