import type { JsonObject, JsonValue } from './types';

/**
 * Sets an own property even for the key `__proto__`: a key from a client is data, and plain
 * assignment would change the object's prototype instead of storing it.
 */
export function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
