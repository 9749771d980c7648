import type { Deps, Principal } from '../../context.ts';
import { forbidden } from '../../errors/app-error.ts';
import { accessIn, chosenAccount } from '../dashboard-users/access.ts';
import { listMemberships } from '../dashboard-users/dashboard-users.repo.ts';
import { requireSession } from './dashboard-sessions.service.ts';

export interface CookieRequest {
  token: string;
  method: string;
  csrfHeader: unknown;
  /** The merchant account header of the request, if any. */
  requestedAccount: string | null;
}

/**
 * The principal of a request the session cookie authorizes: the user's roles' scopes in the
 * merchant account it acts on, limited to that account unless every role there is an
 * every-account one. The route then checks its scope as it does a token's, so the console can do
 * exactly what a token with those scopes can. Read per request: a disabled user, a revoked
 * session or a changed role counts on the next request, on every process.
 */
export async function dashboardPrincipal(deps: Deps, request: CookieRequest): Promise<Principal> {
  const live = await requireSession(deps, request.token, request.method, request.csrfHeader, ['enrollment', 'active']);
  if (live.session.stage !== 'active')
    throw forbidden(
      'Enrol a second factor first (POST /dashboard/api/session/totp-enrollment or /dashboard/api/session/passkey-registration): administrators must have one',
    );
  const memberships = await listMemberships(deps.db, live.user.id);
  const account = chosenAccount(memberships, request.requestedAccount);
  const access = accessIn(memberships, account);
  if (!access) throw forbidden(`This user has no role in merchant account ${account}`);
  return {
    kind: 'dashboard-user',
    keyPairId: live.user.id,
    keyPairName: live.user.display_name,
    thumbprint: '',
    scopes: access.scopes,
    restrictedTo: access.restrictedTo,
    embed: null,
    tokenMerchantAccountId: null,
    tokenId: live.session.id,
    tokenHash: live.session.id,
    expiresAt: Math.floor(live.session.expires_at.getTime() / 1000),
    user: { id: live.user.id, email: live.user.email, displayName: live.user.display_name },
  };
}
