import fc from 'fast-check';
import { DomainError } from '../errors';
import { PROMPT_TEMPLATE_LIMITS } from '../limits';
import { resolvedLabels } from './prompt-template';
import { encodeCursor } from '../reads/cursor';
import { parsePromptTemplateQuery, validatePromptVersionInput } from './validate-prompt-template';

/** The message of the validation error `run` throws; fails the test when it throws none. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('VALIDATION_ERROR');
    return (err as DomainError).message;
  }
  throw new Error('expected a validation error');
}

describe(validatePromptVersionInput.name, () => {
  it('takes a text template with defaults for what is left out', () => {
    expect(validatePromptVersionInput({ name: 'support/greeting', template: 'Hello {{name}}' })).toEqual({
      name: 'support/greeting',
      template: 'Hello {{name}}',
      labels: [],
      config: {},
      commitMessage: null,
    });
  });

  it('takes a chat template, keeping only role and content, and sorts and dedupes the labels', () => {
    const input = validatePromptVersionInput({
      name: 'Résumé écrit 2',
      template: [
        { role: 'system', content: 'You are terse.', name: 'ignored' },
        { role: 'user', content: '' },
      ],
      labels: ['staging', 'production', 'staging'],
      config: { model: 'gpt-4o-mini', temperature: 0.2 },
      commitMessage: 'shorter',
      unknownField: true,
    });
    expect(input).toEqual({
      name: 'Résumé écrit 2',
      template: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: '' },
      ],
      labels: ['production', 'staging'],
      config: { model: 'gpt-4o-mini', temperature: 0.2 },
      commitMessage: 'shorter',
    });
  });

  it('treats optional fields sent as null as absent', () => {
    expect(validatePromptVersionInput({ name: 'a', template: 't', labels: null, config: null, commitMessage: null })).toMatchObject({
      labels: [],
      config: {},
      commitMessage: null,
    });
  });

  const base = { name: 'greeting', template: 'Hi' };
  it.each([
    ['body must be an object', null],
    ['body must be an object', [base]],
    ['name: must be 1 to 256 characters', { template: 'Hi' }],
    ['name: must be', { ...base, name: '' }],
    ['name: must be', { ...base, name: 'x'.repeat(PROMPT_TEMPLATE_LIMITS.nameLength + 1) }],
    ['name: must be', { ...base, name: 'a\u0000b' }],
    ['name: must be', { ...base, name: 'a\nb' }],
    ['name: must be', { ...base, name: ' lead' }],
    ['name: must be', { ...base, name: 'trail ' }],
    ['name: must be', { ...base, name: 'a\ud800' }],
    ['name: must be', { ...base, name: 'a?b=c' }],
    ['name: must be', { ...base, name: 7 }],
    ['template: is required', { name: 'greeting' }],
    ['template: is required', { ...base, template: '' }],
    ['template: is required', { ...base, template: [] }],
    ['template: is required', { ...base, template: { role: 'user', content: 'x' } }],
    [
      'template: is required',
      { ...base, template: Array.from({ length: PROMPT_TEMPLATE_LIMITS.messages + 1 }, () => ({ role: 'user', content: 'x' })) },
    ],
    ['template: must not contain NUL', { ...base, template: 'a\u0000b' }],
    ['template[0]: must be an object with role and content', { ...base, template: ['hi'] }],
    ['template[1].role: must be', { ...base, template: [{ role: 'user', content: 'x' }, { content: 'x' }] }],
    ['template[0].role: must be', { ...base, template: [{ role: 'us er', content: 'x' }] }],
    ['template[0].content: must be a string', { ...base, template: [{ role: 'user' }] }],
    ['template[0].content: must be a string', { ...base, template: [{ role: 'user', content: 3 }] }],
    ['template[0].content: must not contain NUL', { ...base, template: [{ role: 'user', content: 'x\udc00' }] }],
    ['labels: must be an array', { ...base, labels: 'production' }],
    [
      'labels: must be an array of at most 20',
      { ...base, labels: Array.from({ length: PROMPT_TEMPLATE_LIMITS.labels + 1 }, (_, i) => `l${i}`) },
    ],
    ['labels[1]: must be 1 to 64 characters of a-z', { ...base, labels: ['ok', 'Prod'] }],
    ['labels[0]: must be', { ...base, labels: ['-x'] }],
    ['labels[0]: must be', { ...base, labels: ['x'.repeat(PROMPT_TEMPLATE_LIMITS.labelLength + 1)] }],
    ['labels[0]: must be', { ...base, labels: [1] }],
    ['labels[1]: "latest" is reserved', { ...base, labels: ['production', 'latest'] }],
    ['config: must be an object', { ...base, config: [] }],
    ['config: must be an object', { ...base, config: 'x' }],
    ['config.a[1]: must not contain NUL', { ...base, config: { a: [1, 'b\u0000'] } }],
    ['config (a key): must not contain NUL', { ...base, config: { 'k\ud800': 1 } }],
    ['commitMessage: must be a string of at most 2000', { ...base, commitMessage: 5 }],
    ['commitMessage: must be a string', { ...base, commitMessage: 'x'.repeat(PROMPT_TEMPLATE_LIMITS.commitMessageLength + 1) }],
  ])('refuses with "%s"', (message, body) => {
    expect(refusal(() => validatePromptVersionInput(body))).toContain(message);
  });

  it('takes every name of the allowed characters, and keeps it as sent', () => {
    const char = fc.constantFrom(...'aZ09_-./:@+ éß中'.split(''));
    const name = fc
      .tuple(fc.constantFrom('a', 'Z', '7', 'é'), fc.array(char, { maxLength: 60 }), fc.constantFrom('b', '9', '_'))
      .map(([first, rest, last]) => first + rest.join('') + last);
    fc.assert(fc.property(name, (n) => expect(validatePromptVersionInput({ name: n, template: 't' }).name).toBe(n)));
  });
});

describe(parsePromptTemplateQuery.name, () => {
  it('lists without a name, 50 at a time by default, from an opaque cursor', () => {
    expect(parsePromptTemplateQuery({})).toEqual({ kind: 'list', limit: 50, after: null });
    expect(parsePromptTemplateQuery({ limit: '100', cursor: encodeCursor(['a/b c']) })).toEqual({
      kind: 'list',
      limit: 100,
      after: 'a/b c',
    });
    expect(parsePromptTemplateQuery({ limit: '', cursor: '' })).toEqual({ kind: 'list', limit: 50, after: null });
  });

  it('resolves a name by default, by version or by label, latest included', () => {
    expect(parsePromptTemplateQuery({ name: 'greeting' })).toEqual({ kind: 'resolve', name: 'greeting', pick: { by: 'default' } });
    expect(parsePromptTemplateQuery({ name: 'greeting', version: '12' })).toEqual({
      kind: 'resolve',
      name: 'greeting',
      pick: { by: 'version', version: 12 },
    });
    expect(parsePromptTemplateQuery({ name: 'greeting', label: 'staging' })).toEqual({
      kind: 'resolve',
      name: 'greeting',
      pick: { by: 'label', label: 'staging' },
    });
    expect(parsePromptTemplateQuery({ name: 'greeting', label: 'latest' })).toEqual({
      kind: 'resolve',
      name: 'greeting',
      pick: { by: 'label', label: 'latest' },
    });
  });

  it.each([
    ['limit: must be an integer from 1 to 100', { limit: '0' }],
    ['limit: must be an integer from 1 to 100', { limit: '101' }],
    ['limit: must be an integer', { limit: '5.5' }],
    ['limit: must be an integer', { limit: 'ten' }],
    ['cursor: not a cursor returned by this endpoint', { cursor: 'bm9wZQ' }],
    ['cursor: not a cursor', { cursor: Buffer.from('["\\u0000"]').toString('base64url') }],
    ['name: is required with version or label', { version: '1' }],
    ['name: is required with version or label', { label: 'production' }],
    ['version, label: give one of them, not both', { name: 'greeting', version: '2', label: 'production' }],
    ['version: must be a positive integer', { name: 'greeting', version: '0' }],
    ['version: must be a positive integer', { name: 'greeting', version: '-1' }],
    ['version: must be a positive integer', { name: 'greeting', version: '1e3' }],
    ['version: must be a positive integer', { name: 'greeting', version: '2147483648' }],
    ['label: must be', { name: 'greeting', label: 'Prod!' }],
    ['name: must be given once', { name: ['a', 'b'] }],
    ['name: must be', { name: 'x'.repeat(257) }],
  ])('refuses with "%s"', (message, query) => {
    expect(refusal(() => parsePromptTemplateQuery(query))).toContain(message);
  });

  it('reads back every cursor it writes', () => {
    const name = fc.stringMatching(/^[a-z0-9][a-z0-9 _./:@+-]{0,40}[a-z0-9]$/);
    fc.assert(
      fc.property(name, (n) =>
        expect(parsePromptTemplateQuery({ cursor: encodeCursor([n]) })).toEqual({ kind: 'list', limit: 50, after: n }),
      ),
    );
  });
});

describe(resolvedLabels.name, () => {
  it('adds latest to the newest version only, sorted', () => {
    expect(resolvedLabels(['staging', 'production'], true)).toEqual(['latest', 'production', 'staging']);
    expect(resolvedLabels(['production'], false)).toEqual(['production']);
  });
});
