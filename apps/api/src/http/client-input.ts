import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { type DtoClass, isFieldDto, isJsonObject, refusalsOf, toDto, validationError } from '@app/domain';

/**
 * The one reader of a REST route's or RPC procedure's input: the DTO `cls` built from it by
 * its field rules, or a 400 VALIDATION_ERROR naming every field at fault in the format the
 * domain's readers use (`email: is required; password: is required`). Anything but an object
 * reads as `{}`, so each required field is named.
 */
export function readInput<T extends object>(cls: DtoClass<T>, input: unknown): T {
  const dto = toDto(cls, isJsonObject(input) ? input : {});
  const refusals = refusalsOf(cls, dto);
  if (refusals.length > 0) throw validationError(refusals.map(({ path, message }) => `${path}: ${message}`).join('; '));
  return dto;
}

/** Installed for every route: reads each `@Body()`/`@Query()` typed as a field-rule DTO; other parameters pass as they are. */
@Injectable()
export class FieldDtoPipe implements PipeTransform {
  transform(value: unknown, { metatype }: ArgumentMetadata): unknown {
    return isFieldDto(metatype) ? readInput(metatype, value) : value;
  }
}
