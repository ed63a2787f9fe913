import type { JsonObject, JsonValue, SpanDelta } from '@app/domain';
import { setOwn } from '@app/domain/json/set-own';

/** A span row's attributes without the copies of its input and output, and the keys they were under. */
export interface LeanAttributes {
  attributes: JsonObject;
  input_attribute?: string;
  output_attribute?: string;
}

/**
 * OTLP conventions take a span's input and output from an attribute as it is (`gen_ai.prompt`,
 * `input.value`…), and CONTRACT keeps `attributes` whole, so the row would hold the prompt and
 * completion twice. An attribute that is the very value of the input or output set by the same
 * event (same version, same value) is left out and its key named instead; `SPAN_ATTRIBUTES`
 * puts it back on read, and the upsert stores the attributes whole in a row merged into.
 * Null when nothing is left out.
 */
export function leanAttributes(delta: SpanDelta): LeanAttributes | null {
  const { attributes } = delta.values;
  if (!attributes) return null;
  const inputKey = copyOf(delta, 'input', undefined);
  const outputKey = copyOf(delta, 'output', inputKey);
  if (inputKey === undefined && outputKey === undefined) return null;
  const kept: JsonObject = {};
  for (const key of Object.keys(attributes)) {
    if (key !== inputKey && key !== outputKey) setOwn(kept, key, attributes[key]);
  }
  const lean: LeanAttributes = { attributes: kept };
  if (inputKey !== undefined) lean.input_attribute = inputKey;
  if (outputKey !== undefined) lean.output_attribute = outputKey;
  return lean;
}

/** The key of the attribute that is `field`'s value as the same event set it, other than `taken`. */
function copyOf(delta: SpanDelta, field: 'input' | 'output', taken: string | undefined): string | undefined {
  const value: JsonValue | undefined = delta.values[field];
  const { attributes } = delta.values;
  if (value === undefined || value === null || !attributes || delta.versions[field] !== delta.versions.attributes) return undefined;
  for (const key of Object.keys(attributes)) if (key !== taken && attributes[key] === value) return key;
  return undefined;
}
