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
    [{ name: 'a\u0000b' }, ['name must not contain NUL characters or unpaired UTF-16 surrogates']],
    [{ name: 'a\ud800' }, ['name must not contain NUL characters or unpaired UTF-16 surrogates']],
    [{ name: '\udc00b' }, ['name must not contain NUL characters or unpaired UTF-16 surrogates']],
    [{ name: 'ok' }, []],
    [{ name: 'o\u{1f600}' }, []],
  ])('reports %p as %p: one message per field', (input, expected) => {
    expect(messages(input)).toEqual(expected);
  });
});
