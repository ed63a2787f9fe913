import { isJsonObject } from '../json/types';
import { type DtoClass, validateDto } from '../validation';

/**
 * A stream message's data read by the field rules of its schema's DTO, as a plain object of
 * the declared fields; anything else throws `refusal` with the field at fault, which the
 * consumer dead-letters.
 */
export function readMessage<T extends object>(cls: DtoClass<T>, value: unknown, refusal: string): T {
  const check = validateDto(cls, isJsonObject(value) ? value : {}, '');
  if (!check.ok) throw new Error(`${refusal}: ${check.message}`);
  return { ...check.value };
}
