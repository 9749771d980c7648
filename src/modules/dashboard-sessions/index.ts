import type { FastifyInstance } from 'fastify';
import { completeDashboardSetup } from './routes/complete-dashboard-setup.ts';
import { confirmPasskeyRegistration } from './routes/confirm-passkey-registration.ts';
import { confirmTotpEnrollment } from './routes/confirm-totp-enrollment.ts';
import { deleteDashboardPasskey } from './routes/delete-dashboard-passkey.ts';
import { getDashboardSession } from './routes/get-dashboard-session.ts';
import { listDashboardPasskeys } from './routes/list-dashboard-passkeys.ts';
import { signIn } from './routes/sign-in.ts';
import { signOut } from './routes/sign-out.ts';
import { signOutEverywhere } from './routes/sign-out-everywhere.ts';
import { startPasskeyRegistration } from './routes/start-passkey-registration.ts';
import { startPasskeySignIn } from './routes/start-passkey-sign-in.ts';
import { startTotpEnrollment } from './routes/start-totp-enrollment.ts';
import { verifySignInCode } from './routes/verify-sign-in-code.ts';
import { verifySignInPasskey } from './routes/verify-sign-in-passkey.ts';

/** The console's own routes: sign-in, second factors (TOTP, passkeys), sign-out, set-up. Authorized by the session cookie, not a bearer token. */
export const dashboardSessionRoutes = [
  signIn,
  verifySignInCode,
  getDashboardSession,
  signOut,
  signOutEverywhere,
  startTotpEnrollment,
  confirmTotpEnrollment,
  startPasskeyRegistration,
  confirmPasskeyRegistration,
  startPasskeySignIn,
  verifySignInPasskey,
  listDashboardPasskeys,
  deleteDashboardPasskey,
  completeDashboardSetup,
];

export async function dashboardSessions(app: FastifyInstance): Promise<void> {
  for (const route of dashboardSessionRoutes) app.route(route);
}
