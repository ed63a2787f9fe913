import fc from 'fast-check';
import { type SpanFields, type Version, type Versioned, versionOf } from '@app/domain';
import { SPAN_FIELD_COLUMNS } from './columns';
import { type StoredVersions, storedVersions } from './stored-versions';

/** What `spanlog_version` reads in SQL: a named field's own version, else the default. */
const versionIn = (result: StoredVersions, field: string): Version | null => (field in result ? result[field] : (result['*'] ?? null));

const A = versionOf('2024-01-01T00:00:01.000Z', 'eee19b7ec3c1b174');
const B = versionOf('2024-01-01T00:00:02.000Z', 'eee19b7ec3c1b175');
const ALL_SPAN_FIELDS = SPAN_FIELD_COLUMNS.map((c) => c.field);
const stored = (versions: Versioned<SpanFields>['versions']) => storedVersions(versions, SPAN_FIELD_COLUMNS);
const setting = (fields: (keyof SpanFields)[], version: Version) => Object.fromEntries(fields.map((f) => [f, version]));

describe(storedVersions.name, () => {
  it('stores the version one event gave most fields once, and names the fields it did not set with null', () => {
    const unset: (keyof SpanFields)[] = ['model', 'cost'];
    const versions = setting(
      ALL_SPAN_FIELDS.filter((f) => !unset.includes(f)),
      A,
    );
    expect(stored(versions)).toEqual({ '*': A, model: null, cost: null });
  });

  it('names the fields of another version with their own', () => {
    const versions = { ...setting(ALL_SPAN_FIELDS, A), name: B };
    expect(stored(versions)).toEqual({ '*': A, name: B });
  });

  it('keeps field by field a delta that sets few fields, which is smaller so', () => {
    expect(stored({ traceId: A, name: A })).toEqual({ traceId: A, name: A });
  });

  it('stores nothing for a delta that sets no field', () => {
    expect(stored({})).toEqual({});
  });

  it('gives every field the version it had, and none to a field it had none for', () => {
    const versionsArb = fc.dictionary(
      fc.constantFrom(...ALL_SPAN_FIELDS),
      fc.constantFrom(A, B, versionOf('2024-01-01T00:00:00.000Z', 'x')),
    );
    fc.assert(
      fc.property(versionsArb, (versions) => {
        const result = stored(versions);
        for (const field of ALL_SPAN_FIELDS) expect(versionIn(result, field)).toBe(versions[field] ?? null);
      }),
    );
  });
});
