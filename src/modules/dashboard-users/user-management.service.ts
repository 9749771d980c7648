import { accountLimit, hasScope, withRequestTransaction, type RequestContext } from '../../context.ts';
import type { DashboardMembershipRow, DashboardUserRow } from '../../db/schema-dashboard.ts';
import type { Executor, Tx } from '../../db/transaction.ts';
import { AppError, duplicateRecord, fieldRefusal, forbidden, notFound } from '../../errors/app-error.ts';
import { listPage } from '../../http/pagination.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit, type AuditAction } from '../audit-logs/audit-logs.service.ts';
import { revokeUserSessions } from '../dashboard-sessions/dashboard-sessions.repo.ts';
import { merchantAccountExists } from '../merchant-accounts/merchant-accounts.service.ts';
import { roleSetProblem, roleSlugOfId } from '../roles/roles.catalogue.ts';
import { accessIn } from './access.ts';
import * as repo from './dashboard-users.repo.ts';
import { newSetupLink } from './dashboard-users.service.ts';
import {
  assignmentProblem,
  managementProblem,
  sameMembership,
  type Manager,
  type Membership,
} from './user-privileges.ts';
import {
  toUserResource,
  type CreatedUser,
  type CreateUserBody,
  type ListUsersQuery,
  type RoleAssignment,
  type UpdateUserBody,
  type User,
  type UserSetupLink,
} from './users.schemas.ts';

/** The caller as a manager of users: its reach, its scopes and (a dashboard user's) roles in the account viewed. */
async function managerOf(ctx: RequestContext, db: Executor): Promise<Manager> {
  const principal = ctx.principal!;
  const userId = principal.user?.id ?? null;
  const roles = userId ? (accessIn(await repo.listMemberships(db, userId), ctx.merchantAccountId)?.roles ?? []) : [];
  return { userId, restrictedTo: accountLimit(principal), roles, holds: (scope) => hasScope(principal, scope) };
}

/** The memberships within a caller's reach: all of them, or those of the one account it is limited to. */
const inReach = (manager: Manager, m: DashboardMembershipRow) =>
  manager.restrictedTo === null || m.merchant_account_id === manager.restrictedTo;

/** What an answer shows: every membership, or (a caller limited to one account) that account's and every-account ones. */
function shown(ctx: RequestContext, user: DashboardUserRow, memberships: readonly DashboardMembershipRow[]): User {
  const limit = accountLimit(ctx.principal);
  return toUserResource(
    user,
    memberships.filter((m) => limit === null || m.merchant_account_id === limit || m.merchant_account_id === null),
  );
}

/** A user belongs to the account viewed with a role there or in every account; others are 404. */
const belongs = (ctx: RequestContext, memberships: readonly DashboardMembershipRow[]) =>
  memberships.some((m) => m.merchant_account_id === ctx.merchantAccountId || m.merchant_account_id === null);

const toMembership = (m: DashboardMembershipRow): Membership => ({
  merchantAccountId: m.merchant_account_id,
  role: m.role as Membership['role'],
});

/** The assignments of a body as memberships: known roles, existing accounts, valid sets per account. */
async function membershipsOf(
  ctx: RequestContext,
  tx: Tx,
  assignments: readonly RoleAssignment[],
): Promise<Membership[]> {
  const out: Membership[] = [];
  for (const [i, a] of assignments.entries()) {
    const role = roleSlugOfId(a.role_id);
    if (!role)
      throw fieldRefusal('body', `/roles/${i}/role_id`, `Unknown role ${a.role_id}; GET /roles lists the roles`);
    const merchantAccountId = a.merchant_account_id === undefined ? ctx.merchantAccountId : a.merchant_account_id;
    if (merchantAccountId !== null && !(await merchantAccountExists(tx, merchantAccountId)))
      throw fieldRefusal(
        'body',
        `/roles/${i}/merchant_account_id`,
        `The merchant account ${merchantAccountId} does not exist`,
      );
    if (!out.some((m) => sameMembership(m, { merchantAccountId, role }))) out.push({ merchantAccountId, role });
  }
  for (const account of new Set(out.map((m) => m.merchantAccountId))) {
    const problem = roleSetProblem(out.filter((m) => m.merchantAccountId === account).map((m) => m.role));
    if (problem) throw fieldRefusal('body', '/roles', `${account ?? 'Every merchant account'}: ${problem}`);
  }
  return out;
}

function checkAssignments(manager: Manager, memberships: readonly Membership[], targetId: string): void {
  for (const m of memberships) {
    const problem = assignmentProblem(manager, m, targetId);
    if (problem) throw forbidden(problem);
  }
}

const describeRoles = (memberships: readonly Membership[]) =>
  memberships.map((m) => `${m.role} in ${m.merchantAccountId ?? 'every merchant account'}`).join(', ') || 'no role';

async function audit(tx: Tx, ctx: RequestContext, action: AuditAction, user: DashboardUserRow, what: string) {
  await recordAudit(tx, ctx, action, { type: 'user', id: user.id, name: `${user.email}: ${what}` });
}

export async function listUsers(ctx: RequestContext, query: ListUsersQuery) {
  const role = query.role_id === undefined ? undefined : roleSlugOfId(query.role_id);
  if (query.role_id !== undefined && !role)
    throw fieldRefusal('query', '/role_id', `Unknown role ${query.role_id}; GET /roles lists the roles`);
  const filter = {
    merchantAccountId: ctx.merchantAccountId,
    emailPrefix: query.email_address,
    status: query.status,
    role,
  };
  let memberships = new Map<string, DashboardMembershipRow[]>();
  return listPage(
    ctx,
    `users:${JSON.stringify([filter.emailPrefix, filter.status, role])}`,
    query,
    async (position, limit) => {
      const page = await repo.listUsers(ctx.deps.db, filter, position, limit);
      memberships = await repo.membershipsOfUsers(
        ctx.deps.db,
        page.rows.map((row) => row.id),
      );
      return page;
    },
    (row) => shown(ctx, row, memberships.get(row.id) ?? []),
    (row) => [row.created_at, row.id],
  );
}

async function visibleUser(ctx: RequestContext, db: Executor, id: string, forUpdate = false) {
  const user = await repo.findUser(db, id, { forUpdate });
  const memberships = user ? await repo.listMemberships(db, id) : [];
  if (!user || !belongs(ctx, memberships)) throw notFound('user', id);
  return { user, memberships };
}

export async function getUser(ctx: RequestContext, id: string): Promise<User> {
  const { user, memberships } = await visibleUser(ctx, ctx.deps.db, id);
  return shown(ctx, user, memberships);
}

/** Invites a user: creates it with its roles and a one-time set-up link, shown in this answer only. */
export async function inviteUser(ctx: RequestContext, body: CreateUserBody): Promise<CreatedUser> {
  return withRequestTransaction(ctx, async (tx) => {
    const manager = await managerOf(ctx, tx);
    const memberships = await membershipsOf(ctx, tx, body.roles);
    const id = uuidv7();
    checkAssignments(manager, memberships, id);
    const now = new Date();
    const user = await repo.insertUser(tx, {
      id,
      email: body.email_address,
      display_name: body.display_name ?? body.email_address.split('@')[0]!,
      created_at: now,
      updated_at: now,
    });
    if (!user) throw await duplicateEmail(ctx, tx, body.email_address);
    for (const account of new Set(memberships.map((m) => m.merchantAccountId)))
      await repo.addMemberships(
        tx,
        id,
        account,
        memberships.filter((m) => m.merchantAccountId === account).map((m) => m.role),
      );
    const link = await newSetupLink(tx, ctx.deps, id, now);
    await audit(tx, ctx, 'created', user, `invited with ${describeRoles(memberships)}`);
    return {
      ...shown(ctx, user, await repo.listMemberships(tx, id)),
      setup_url: link.url,
      setup_url_expires_at: link.expiresAt.toISOString(),
    };
  });
}

/** The 409 of an address in use; the user is named only when the caller could see it. */
async function duplicateEmail(ctx: RequestContext, tx: Tx, email: string): Promise<AppError> {
  const existing = await repo.findUserByEmail(tx, email);
  const message = `A user with the e-mail address ${email} exists already`;
  if (existing && belongs(ctx, await repo.listMemberships(tx, existing.id)))
    return duplicateRecord(existing.id, message);
  return new AppError('duplicate_record', message);
}

/** The memberships after a replace: those out of the caller's reach stay, the rest become `wanted`. */
function replaceRoles(
  manager: Manager,
  targetId: string,
  held: readonly DashboardMembershipRow[],
  wanted: Membership[],
) {
  const current = held.filter((m) => inReach(manager, m)).map(toMembership);
  // A membership the user holds already out of reach (one the answer showed) is no change.
  const added = wanted.filter((m) => !held.some((h) => sameMembership(toMembership(h), m)));
  const removed = current.filter((c) => !wanted.some((m) => sameMembership(c, m)));
  checkAssignments(manager, [...added, ...removed], targetId);
  const kept = held.filter((m) => !inReach(manager, m)).map(toMembership);
  return { added, removed, after: [...kept, ...wanted] };
}

export async function updateUser(ctx: RequestContext, id: string, body: UpdateUserBody): Promise<User> {
  return withRequestTransaction(ctx, async (tx) => {
    const manager = await managerOf(ctx, tx);
    const { user, memberships } = await visibleUser(ctx, tx, id, true);
    const self = manager.userId === id;
    const changes: string[] = [];
    const patch: repo.UserPatch = {};
    if (body.display_name !== undefined && body.display_name !== user.display_name) {
      patch.display_name = body.display_name;
      changes.push(`name ${body.display_name}`);
    }
    if (body.status !== undefined && body.status !== user.status) {
      if (self && body.status === 'disabled') throw forbidden('A user cannot disable itself');
      patch.status = body.status;
      changes.push(body.status === 'disabled' ? 'disabled' : 'enabled');
    }
    if (changes.length > 0) {
      const problem = managementProblem(manager, id, memberships.map(toMembership));
      if (problem) throw forbidden(problem);
    }
    if (body.roles !== undefined) {
      const wanted = await membershipsOf(ctx, tx, body.roles);
      const { added, removed, after } = replaceRoles(manager, id, memberships, wanted);
      // A user without any role would be out of every account's list, beyond anyone's reach.
      if (after.length === 0)
        throw fieldRefusal('body', '/roles', 'A user keeps at least one role; disable it instead');
      if (self && memberships.some((m) => m.role === 'administrator') && !after.some((m) => m.role === 'administrator'))
        throw forbidden('A user cannot remove its own last administrator role');
      if (added.length + removed.length > 0) {
        await repo.removeMemberships(tx, id, removed);
        for (const m of added) await repo.addMemberships(tx, id, m.merchantAccountId, [m.role]);
        changes.push(`roles ${describeRoles(wanted)}`);
      }
    }
    if (changes.length === 0) return shown(ctx, user, memberships);
    const updated = await repo.updateUser(tx, id, patch);
    // Disabled: its sessions end now; the per-request read refuses them on every process anyway.
    if (patch.status === 'disabled') await revokeUserSessions(tx, id, new Date());
    await audit(tx, ctx, 'updated', updated, changes.join('; '));
    return shown(ctx, updated, await repo.listMemberships(tx, id));
  });
}

/** A new set-up link (a password reset): earlier links stop working and the user's sessions end. */
export async function issueSetupLink(ctx: RequestContext, id: string): Promise<UserSetupLink> {
  return withRequestTransaction(ctx, async (tx) => {
    const manager = await managerOf(ctx, tx);
    const { user, memberships } = await visibleUser(ctx, tx, id, true);
    const problem = managementProblem(manager, id, memberships.map(toMembership));
    if (problem) throw forbidden(problem);
    const now = new Date();
    const link = await newSetupLink(tx, ctx.deps, id, now);
    await revokeUserSessions(tx, id, now);
    await audit(tx, ctx, 'updated', user, 'new set-up link issued, sessions ended');
    return { type: 'user-setup-link', user_id: id, setup_url: link.url, expires_at: link.expiresAt.toISOString() };
  });
}
