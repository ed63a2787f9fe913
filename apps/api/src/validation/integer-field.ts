import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';

/** Digits only, no sign, no leading zero: what `Number()` alone would also read from `0x10`, `1e2`, ` 5` or `5.0`. */
const DECIMAL_INTEGER = /^(0|[1-9][0-9]{0,15})$/;

/**
 * An integer parameter from `min` to `max`: a JSON integer, or text of decimal digits only (a
 * query string). The one reader of integer query parameters, so that no other form slips
 * through `Number`'s leniency.
 */
export function DecimalIntegerField({ min, max }: { min: number; max: number }): PropertyDecorator {
  const read = Transform(({ value }: { value: unknown }) => (typeof value === 'string' && DECIMAL_INTEGER.test(value) ? Number(value) : value));
  const check = ValidateBy({
    name: 'decimalInteger',
    validator: {
      validate: (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max,
      defaultMessage: (args) => `${args?.property} must be a decimal integer from ${min} to ${max}`,
    },
  });
  return (target, key) => {
    read(target, key);
    check(target, key);
  };
}
