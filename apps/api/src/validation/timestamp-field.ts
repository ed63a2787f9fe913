import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';
import { TIMESTAMP_RULE, parseTimestamp } from '@app/domain';

/**
 * An optional timestamp parameter, held as epoch milliseconds. Read by the one parser of
 * client timestamps, so a query takes exactly the forms ingestion takes, and Postgres gets a
 * canonical time, never a form it would read differently (a date without a zone is local
 * time there) or refuse (`2024-W01-1`, `…T00:00:00,5Z`).
 */
export function TimestampField(): PropertyDecorator {
  const read = Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? (parseTimestamp(value) ?? value) : value));
  const check = ValidateBy({
    name: 'timestamp',
    validator: {
      validate: (value: unknown) => typeof value === 'number',
      defaultMessage: (args) => `${args?.property} must be ${TIMESTAMP_RULE}`,
    },
  });
  return (target, key) => {
    read(target, key);
    check(target, key);
  };
}
