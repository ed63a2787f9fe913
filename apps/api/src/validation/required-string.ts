import { ValidateBy, type ValidationOptions } from 'class-validator';
import { UNSTORABLE_TEXT, isStorableText } from '@app/domain';

/** What is wrong with a required string field, in words a client can act on; null when nothing is. */
export function requiredStringProblem(field: string, value: unknown, maxLength: number): string | null {
  if (value === undefined || value === null || value === '') return `${field} is required`;
  if (typeof value !== 'string') return `${field} must be a string`;
  if (value.length > maxLength) return `${field} must be at most ${maxLength} characters`;
  if (!isStorableText(value)) return `${field} ${UNSTORABLE_TEXT}`;
  return null;
}

/**
 * A required string of 1 to `maxLength` characters that Postgres can store, as one
 * constraint: stacked decorators (IsString, IsNotEmpty, MaxLength) would each report a
 * missing field, in three messages.
 */
export function RequiredString(maxLength: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'requiredString',
      constraints: [maxLength],
      validator: {
        validate: (value: unknown, args) => requiredStringProblem(args?.property ?? '', value, maxLength) === null,
        defaultMessage: (args) => requiredStringProblem(args?.property ?? '', args?.value, maxLength) ?? '',
      },
    },
    options,
  );
}
