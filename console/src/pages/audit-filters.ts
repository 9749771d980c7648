/** The audit log's filters as GET /audit-logs takes them: action, resource type and user (its id). */

export const AUDIT_ACTIONS = ['created', 'updated', 'deleted', 'voided', 'canceled', 'captured'] as const;

export interface AuditFilters {
  action: string;
  resource_type: string;
  user_id: string;
}

export const NO_AUDIT_FILTERS: AuditFilters = { action: '', resource_type: '', user_id: '' };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The query of typed filters (trimmed, the resource type lower case), or what to correct. */
export function auditQuery(draft: AuditFilters): { query: AuditFilters } | { error: string } {
  const user = draft.user_id.trim();
  if (user && !UUID.test(user)) return { error: "A user is given by its id (a UUID): use a row's “Only this user”" };
  if (draft.action && !(AUDIT_ACTIONS as readonly string[]).includes(draft.action))
    return { error: 'Choose an action from the list' };
  return { query: { action: draft.action, resource_type: draft.resource_type.trim().toLowerCase(), user_id: user } };
}

/** The resource types seen so far, sorted, for the filter's suggestions. */
export function seenTypes(known: readonly string[], entries: ReadonlyArray<{ resource: { type: string } }>): string[] {
  return [...new Set([...known, ...entries.map((e) => e.resource.type)])].sort();
}
