import type { Version, Versioned } from '@app/domain';

/**
 * `versions` as a row stores it (migrations CompactVersions, UnsetFieldsUnnamed): a field
 * named with null has no version, any other named field has its own; a field not named has
 * `"*"`'s if its column holds a value and none if it is NULL, since no event sets a field to
 * null. Without `"*"` only named fields have one: the form rows had before CompactVersions.
 */
export type StoredVersions = Record<string, Version | null>;

/**
 * A delta's versions in their stored form. One event stamps every field it sets with its
 * version, so the version most fields share is stored once as `"*"`, and only the fields of
 * other versions are named; the fields the delta does not set are NULL in its row and need
 * no entry.
 */
export function storedVersions<F>(versions: Versioned<F>['versions']): StoredVersions {
  const named = versions as Record<string, Version>;
  const shared = majorityOf(named);
  if (shared === undefined) return {};
  const compact: StoredVersions = { '*': shared };
  for (const field in named) if (named[field] !== shared) compact[field] = named[field];
  return compact;
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

/**
 * A field's version in a stored `versions`, as `spanlog_version_of` reads it in SQL: its own
 * if named (null: none), else `"*"`'s if the row holds the field (`present`), else none.
 */
export function storedVersionOf(stored: StoredVersions, field: string, present: boolean): Version | undefined {
  if (Object.hasOwn(stored, field)) return stored[field] ?? undefined;
  return present ? (stored['*'] ?? undefined) : undefined;
}
