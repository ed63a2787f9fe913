import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import fc from 'fast-check';
import { DecimalIntegerField } from './integer-field';

class Probe {
  @DecimalIntegerField({ min: 1, max: 100 }) limit: number;
}

const read = (limit: unknown) => {
  const probe = plainToInstance(Probe, { limit });
  const errors = validateSync(probe).flatMap((e) => Object.values(e.constraints ?? {}));
  return errors.length ? errors : probe.limit;
};

const REFUSAL = ['limit must be a decimal integer from 1 to 100'];

describe(DecimalIntegerField.name, () => {
  it.each(['1', '16', '100', 16])('takes %p', (value) => {
    expect(read(value)).toBe(Number(value));
  });

  it.each(['0x10', '1e2', '5.0', '+5', ' 5', '5 ', '0b11', '0o7', '010', '', '0', '101', '-1', 'Infinity', 16.5, '16abc', true, null])('refuses %p naming the field and its range', (value) => {
    expect(read(value)).toEqual(REFUSAL);
  });

  it('takes exactly the decimal digits of an integer in range, whatever the text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const inRange = /^[1-9][0-9]*$/.test(text) && Number(text) <= 100;
        expect(read(text)).toEqual(inRange ? Number(text) : REFUSAL);
      }),
    );
  });
});
