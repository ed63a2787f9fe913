import type { Version, Versioned } from '@app/domain';

/**
 * `versions` as a row stores it (migration CompactVersions): `"*"` is the version of every
 * field the object does not name, a field named with null has no version, any other named
 * field has its own. Without `"*"` only named fields have one: the form rows had before.
 */
export type StoredVersions = Record<string, Version | null>;

/** What an entry adds to a jsonb object: two 4-byte headers, the key, the string. */
const entryBytes = (key: string, version: Version | null): number => 8 + key.length + (version?.length ?? 0);

/**
 * A delta's versions in their smaller stored form. One event stamps every field it sets
 * with its version, so the version most fields share is stored once as `"*"`; the fields
 * the delta does not set are then named with null, since they have no version and must not
 * take the default. A delta that sets few of the fields is smaller named field by field.
 */
export function storedVersions<F>(versions: Versioned<F>['versions'], fields: readonly { field: keyof F & string }[]): StoredVersions {
  const named = versions as Record<string, Version>;
  const shared = majorityOf(named);
  if (shared === undefined) return {};
  const compact: StoredVersions = { '*': shared };
  // Fields of other versions are named in either form, so only the rest decides.
  let savedBytes = -entryBytes('*', shared);
  for (const field in named) {
    const version = named[field];
    if (version === shared) savedBytes += entryBytes(field, version);
    else compact[field] = version;
  }
  for (const { field } of fields) {
    if (versions[field] !== undefined) continue;
    compact[field] = null;
    savedBytes -= entryBytes(field, null);
  }
  return savedBytes > 0 ? compact : named;
}

/** The version of more than half of the fields if there is one (Boyer–Moore vote), else one of them. */
function majorityOf(versions: Record<string, Version>): Version | undefined {
  let candidate: Version | undefined;
  let lead = 0;
  for (const field in versions) {
    const version = versions[field];
    if (lead === 0) candidate = version;
    lead += version === candidate ? 1 : -1;
  }
  return candidate;
}

/** A field's version in a stored `versions`: its own if named (null: none), else `"*"`'s. */
export function storedVersionOf(stored: StoredVersions, field: string): Version | undefined {
  if (Object.hasOwn(stored, field)) return stored[field] ?? undefined;
  return stored['*'] ?? undefined;
}
