import { normalizeSpanType, validateFilterValuesQuery } from './filter-values';

describe(validateFilterValuesQuery.name, () => {
  it('reads the field, a lower-cased part to look for and a bounded limit', () => {
    expect(validateFilterValuesQuery({ field: 'model' })).toEqual({ field: 'model', limit: 20 });
    expect(validateFilterValuesQuery({ field: 'spanType', prefix: 'LlM', limit: 50 })).toEqual({
      field: 'spanType',
      contains: 'llm',
      limit: 50,
    });
    expect(validateFilterValuesQuery({ field: 'tags', prefix: '' })).toEqual({ field: 'tags', limit: 20 });
  });

  it.each([
    [{}, 'field: '],
    [{ field: 'operationz' }, 'field: must be one of name, spanType, operation, model, tags, userId, sessionId, environment'],
    [{ field: 'scoreName' }, 'field: must be one of'],
    [{ field: 'model', limit: 51 }, 'limit: must be an integer from 1 to 50'],
    [{ field: 'model', limit: 0 }, 'limit: must be an integer from 1 to 50'],
    [{ field: 'model', prefix: 'a\u0000' }, 'prefix: must be a string'],
    [{ field: 'model', prefix: 'x'.repeat(257) }, 'prefix: must be a string'],
    [[], 'query must be an object'],
  ])('refuses %j naming the field', (query, message) => {
    expect(() => validateFilterValuesQuery(query)).toThrow(message);
  });
});

describe(normalizeSpanType.name, () => {
  it('reads any case as SPEC’s upper-case type', () => {
    expect(normalizeSpanType('llm')).toBe('LLM');
    expect(normalizeSpanType('Tool')).toBe('TOOL');
  });
});
