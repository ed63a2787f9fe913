import { DomainError } from '@app/domain';
import { FieldDtoPipe } from '../http/client-input';
import { TraceQueryDto, TraceReadQueryDto } from './trace-query.dto';

// The pipe as app.factory.ts installs it.
const pipe = new FieldDtoPipe();
const read = async (query: Record<string, unknown>, metatype: new () => object = TraceQueryDto) =>
  pipe.transform(query, { type: 'query', metatype });

async function refusal(query: Record<string, unknown>, metatype?: new () => object): Promise<string> {
  const err = await read(query, metatype).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).code).toBe('VALIDATION_ERROR');
  return (err as DomainError).message;
}

const TIMESTAMP_RULE = 'must be an ISO 8601 timestamp from 1970-01-01T00:00:00.000Z to 2099-12-31T23:59:59.999Z';

describe(TraceQueryDto.name, () => {
  it.each(['name', 'tags', 'userId', 'sessionId', 'environment', 'spanType', 'model'])(
    'refuses NUL or an unpaired surrogate in %s, naming it',
    async (field) => {
      expect(await refusal({ [field]: 'a\u0000b' })).toBe(`${field}: must not contain NUL characters or unpaired UTF-16 surrogates`);
      expect(await refusal({ [field]: '\ud800' })).toBe(`${field}: must not contain NUL characters or unpaired UTF-16 surrogates`);
      expect(await refusal({ [field]: ['a', 'b'] })).toBe(`${field}: must be a string`);
    },
  );

  it.each([
    '2024-W01-1',
    '2024-01-01T10Z',
    '2024-01-01T00:00:00,5Z',
    '2024-02-30',
    '2024-01-01T24:00:00Z',
    '9999-12-31T00:00:00Z',
    '1704067200000',
    '',
  ])('refuses the time %p, naming the parameter', async (time) => {
    expect(await refusal({ fromTimestamp: time })).toBe(`fromTimestamp: ${TIMESTAMP_RULE}`);
    expect(await refusal({ toTimestamp: time })).toBe(`toTimestamp: ${TIMESTAMP_RULE}`);
  });

  it('holds a time as the instant it names, whatever its form, so Postgres never reads it in its own zone', async () => {
    expect(await read({ fromTimestamp: '2024-01-01', toTimestamp: '2024-01-01T05:30:00+05:30' })).toMatchObject({
      fromTimestamp: Date.UTC(2024, 0, 1),
      toTimestamp: Date.UTC(2024, 0, 1),
    });
  });
});

describe(TraceReadQueryDto.name, () => {
  it('refuses a repeated minSeq', async () => {
    expect(await refusal({ minSeq: ['ingest.1', 'ingest.2'] }, TraceReadQueryDto)).toBe('minSeq: must be a string');
  });
});
