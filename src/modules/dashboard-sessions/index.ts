import type { FastifyInstance } from 'fastify';
import { completeDashboardSetup } from './routes/complete-dashboard-setup.ts';
import { confirmTotpEnrollment } from './routes/confirm-totp-enrollment.ts';
import { getDashboardSession } from './routes/get-dashboard-session.ts';
import { signIn } from './routes/sign-in.ts';
import { signOut } from './routes/sign-out.ts';
import { signOutEverywhere } from './routes/sign-out-everywhere.ts';
import { startTotpEnrollment } from './routes/start-totp-enrollment.ts';
import { verifySignInCode } from './routes/verify-sign-in-code.ts';

/** The console's own routes: sign-in, second factor, sign-out, set-up. Authorized by the session cookie, not a bearer token. */
export const dashboardSessionRoutes = [
  signIn,
  verifySignInCode,
  getDashboardSession,
  signOut,
  signOutEverywhere,
  startTotpEnrollment,
  confirmTotpEnrollment,
  completeDashboardSetup,
];

export async function dashboardSessions(app: FastifyInstance): Promise<void> {
  for (const route of dashboardSessionRoutes) app.route(route);
}
