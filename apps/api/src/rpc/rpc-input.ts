import { TRPCError } from '@trpc/server';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

/** tRPC input parser from a class-validator DTO: one validated class per procedure input. */
export function dto<T extends object>(cls: new () => T): (input: unknown) => T {
  return (input: unknown) => {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new TRPCError({ code: 'BAD_REQUEST', message: 'input must be an object' });
    }
    const instance = plainToInstance(cls, input);
    const errors = validateSync(instance, { forbidUnknownValues: false });
    if (errors.length) {
      const message = errors.flatMap((e) => Object.values(e.constraints ?? {})).join('; ');
      throw new TRPCError({ code: 'BAD_REQUEST', message });
    }
    return instance;
  };
}

/** As `dto`, for a procedure whose every field is optional: no input at all reads as `{}`. */
export function optionalDto<T extends object>(cls: new () => T): (input: unknown) => T {
  const parse = dto(cls);
  return (input: unknown) => parse(input ?? {});
}
