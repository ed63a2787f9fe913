import fc from 'fast-check';
import { type SpanFields, type Version, type Versioned, versionOf } from '@app/domain';
import { SPAN_FIELD_COLUMNS } from './columns';
import { storedVersionOf, storedVersions } from './stored-versions';

const A = versionOf('2024-01-01T00:00:01.000Z', 'eee19b7ec3c1b174');
const B = versionOf('2024-01-01T00:00:02.000Z', 'eee19b7ec3c1b175');
const ALL_SPAN_FIELDS = SPAN_FIELD_COLUMNS.map((c) => c.field);
const stored = (versions: Versioned<SpanFields>['versions']) => storedVersions(versions);
const setting = (fields: (keyof SpanFields)[], version: Version) => Object.fromEntries(fields.map((f) => [f, version]));

describe(storedVersionOf.name, () => {
  it('reads a named field as named, null as none, and the default only for a field the row holds', () => {
    const result = { '*': A, name: B, cost: null };
    expect([storedVersionOf(result, 'name', true), storedVersionOf(result, 'cost', true), storedVersionOf(result, 'model', true)]).toEqual([
      B,
      undefined,
      A,
    ]);
    expect(storedVersionOf(result, 'model', false)).toBeUndefined();
    expect(storedVersionOf({ name: B }, 'model', true)).toBeUndefined();
  });
});

describe(storedVersions.name, () => {
  it('stores the version one event gave most fields once, and nothing for the fields it did not set', () => {
    const unset: (keyof SpanFields)[] = ['model', 'cost'];
    const versions = setting(
      ALL_SPAN_FIELDS.filter((f) => !unset.includes(f)),
      A,
    );
    expect(stored(versions)).toEqual({ '*': A });
  });

  it('names the fields of another version with their own', () => {
    const versions = { ...setting(ALL_SPAN_FIELDS, A), name: B };
    expect(stored(versions)).toEqual({ '*': A, name: B });
  });

  it('stores a delta of one field under the default too', () => {
    expect(stored({ name: A })).toEqual({ '*': A });
  });

  it('stores nothing for a delta that sets no field', () => {
    expect(stored({})).toEqual({});
  });

  it('gives every field the version it had, and none to a field it had none for, its column being NULL', () => {
    const versionsArb = fc.dictionary(
      fc.constantFrom(...ALL_SPAN_FIELDS),
      fc.constantFrom(A, B, versionOf('2024-01-01T00:00:00.000Z', 'x')),
    );
    fc.assert(
      fc.property(versionsArb, (versions) => {
        const result = stored(versions);
        for (const field of ALL_SPAN_FIELDS)
          expect(storedVersionOf(result, field, versions[field] !== undefined) ?? null).toBe(versions[field] ?? null);
      }),
    );
  });
});
