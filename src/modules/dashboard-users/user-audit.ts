import type { DashboardUserRow } from '../../db/schema-dashboard.ts';
import type { Tx } from '../../db/transaction.ts';
import { recordActorAudit, type AuditAction, type AuditedResource } from '../audit-logs/audit-logs.service.ts';
import { allMerchantAccountIds, listMemberships } from './dashboard-users.repo.ts';

/** The merchant accounts a user may act on: those of its memberships, or every one for an every-account role. */
export async function accountsOfUser(tx: Tx, userId: string): Promise<string[]> {
  const memberships = await listMemberships(tx, userId);
  if (memberships.some((m) => m.merchant_account_id === null)) return allMerchantAccountIds(tx);
  return [...new Set(memberships.map((m) => m.merchant_account_id!))];
}

export interface UserEvent {
  action: AuditAction;
  resource: AuditedResource;
  operationId: string;
  requestId: string | null;
}

/**
 * An audit entry with the user as the actor, for what it does outside the public API (signing in,
 * failing to, signing out, setting a password or a second factor), in every account it may act on.
 */
export async function recordUserEvent(
  tx: Tx,
  user: Pick<DashboardUserRow, 'id' | 'email' | 'display_name'>,
  event: UserEvent,
): Promise<void> {
  const actor = {
    userId: user.id,
    name: user.display_name,
    email: user.email,
    operationId: event.operationId,
    requestId: event.requestId,
  };
  await recordActorAudit(tx, await accountsOfUser(tx, user.id), actor, event.action, event.resource);
}
