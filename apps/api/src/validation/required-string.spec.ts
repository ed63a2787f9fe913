import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { RequiredString } from './required-string';

class Probe {
  @RequiredString(5) name: string;
}

const messages = (input: object): string[] =>
  validateSync(plainToInstance(Probe, input)).flatMap((e) => Object.values(e.constraints ?? {}));

describe(RequiredString.name, () => {
  it.each([
    [{}, ['name is required']],
    [{ name: null }, ['name is required']],
    [{ name: '' }, ['name is required']],
    [{ name: 5 }, ['name must be a string']],
    [{ name: 'toolong' }, ['name must be at most 5 characters']],
    [{ name: 'ok' }, []],
  ])('reports %p as %p: one message per field', (input, expected) => {
    expect(messages(input)).toEqual(expected);
  });
});
