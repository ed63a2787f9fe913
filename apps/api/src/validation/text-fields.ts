import { ValidateBy, type ValidationOptions, isEmail } from 'class-validator';
import { UNSTORABLE_TEXT, isStorableText } from '@app/domain';

/**
 * An optional string Postgres can store (a query filter): a repeated query parameter, which
 * arrives as an array, is refused too.
 */
export function StorableText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'storableText',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && isStorableText(value),
        defaultMessage: (args) => `${args?.property} ${typeof args?.value === 'string' ? UNSTORABLE_TEXT : 'must be a string'}`,
      },
    },
    options,
  );
}

/** An e-mail address Postgres can store. Tested as text first: validator's isEmail throws on an unpaired surrogate. */
export function EmailAddress(): PropertyDecorator {
  return ValidateBy({
    name: 'emailAddress',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isStorableText(value) && isEmail(value),
      defaultMessage: (args) => `${args?.property} must be an e-mail address`,
    },
  });
}
