/**
 * Who may change what in an organization. The API enforces these; the dashboard reads the same
 * lists to offer a user only the controls their role may use.
 */

/** Every role a member of an organization has, as stored. */
export const MEMBER_ROLES = ['owner', 'admin', 'member'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** The roles that manage an organization's projects, keys, members, evaluators and monitors; members only read. */
export const ADMIN_ROLES = ['owner', 'admin'] as const;

/** Only an owner makes or removes another owner, so an admin cannot raise anyone above themselves. */
export const OWNER_ROLES = ['owner'] as const;

export const hasRole = (role: string, allowed: readonly string[]): boolean => allowed.includes(role);
