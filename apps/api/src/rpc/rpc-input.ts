import { TRPCError } from '@trpc/server';
import { type DtoClass, fieldNamesOf, isJsonObject } from '@app/domain';
import { readInput } from '../http/client-input';
import { toTrpcError } from './rpc-errors';

/**
 * tRPC input parser from a field-rule DTO, one per procedure input. The DTO's fields are read
 * by its rules; any other field is passed on as sent, for the domain reader that owns it
 * (evaluator, monitor, page and range fields), so that its message names the field the same
 * way whoever calls it, and an unknown field is refused by name rather than dropped.
 */
export function dto<T extends object>(cls: DtoClass<T>): (input: unknown) => T & Record<string, unknown> {
  // The DTO's own fields only as read: an optional field sent as null is absent there (CONTRACT "General") and must not come back from the raw input.
  const declared = new Set(fieldNamesOf(cls));
  return (input: unknown) => {
    if (!isJsonObject(input)) throw new TRPCError({ code: 'BAD_REQUEST', message: 'input must be an object' });
    try {
      const passedOn = Object.fromEntries(Object.entries(input).filter(([key]) => !declared.has(key)));
      return { ...passedOn, ...readInput(cls, input) };
    } catch (err) {
      throw toTrpcError(err);
    }
  };
}

/** As `dto`, for a procedure whose every field is optional: no input at all reads as `{}`. */
export function optionalDto<T extends object>(cls: DtoClass<T>): (input: unknown) => T & Record<string, unknown> {
  const parse = dto(cls);
  return (input: unknown) => parse(input ?? {});
}
