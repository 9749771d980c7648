import { Type, type Static } from 'typebox';
import type { DashboardMembershipRow, DashboardSessionRow, DashboardUserRow } from '../../db/schema-dashboard.ts';
import { DateTime, Nullable, StringEnum } from '../../http/schemas/common.ts';
import { scopesOfRoles } from '../roles/roles.catalogue.ts';
import { requiresSecondFactor } from '../dashboard-users/access.ts';

const Email = Type.String({
  minLength: 3,
  maxLength: 254,
  format: 'email',
  description: 'The e-mail address the user signs in with (any case)',
});

export const SignInBody = Type.Object(
  { email: Email, password: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);
export type SignInBody = Static<typeof SignInBody>;

export const CodeBody = Type.Object(
  { code: Type.String({ minLength: 6, maxLength: 6, description: 'The 6-digit code of the authenticator app' }) },
  { additionalProperties: false },
);
export type CodeBody = Static<typeof CodeBody>;

export const SetupBody = Type.Object(
  {
    token: Type.String({ minLength: 43, maxLength: 43, description: 'The token of the set-up link' }),
    password: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'At least 12 characters, not made of the e-mail address',
    }),
  },
  { additionalProperties: false },
);
export type SetupBody = Static<typeof SetupBody>;

const MembershipSchema = Type.Object(
  {
    merchant_account_id: Nullable(Type.String({ description: 'null: every merchant account' })),
    roles: Type.Array(Type.String(), { description: 'Role slugs (GET /roles)' }),
    scopes: Type.Array(Type.String(), { description: 'The scopes these roles grant there' }),
  },
  { additionalProperties: false, title: 'DashboardMembership' },
);

export const DashboardUserSchema = Type.Object(
  {
    type: Type.Literal('dashboard-user'),
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    display_name: Type.String(),
    status: StringEnum(['active', 'disabled'] as const),
    totp_enrolled: Type.Boolean(),
    second_factor_required: Type.Boolean({ description: 'An administrator must have a second factor' }),
    memberships: Type.Array(MembershipSchema),
  },
  { additionalProperties: false, title: 'DashboardUser' },
);
export type DashboardUser = Static<typeof DashboardUserSchema>;

export const DashboardSessionSchema = Type.Object(
  {
    type: Type.Literal('dashboard-session'),
    stage: StringEnum(['second-factor', 'enrollment', 'active'] as const, {
      description:
        '`second-factor`: send the code (POST /dashboard/api/session/totp) or use a passkey (POST /dashboard/api/session/passkey); `enrollment`: enrol a second factor first; `active`: signed in',
    }),
    second_factors: Type.Array(StringEnum(['totp', 'passkey'] as const), {
      description: "The user's enrolled second factors: at the `second-factor` stage, the ways to complete the sign-in",
    }),
    csrf_token: Type.String({
      description: 'Send it as x-csrf-token on every state-changing request this session authorizes',
    }),
    expires_at: DateTime({ description: 'The absolute end of the session; it also ends after the idle timeout' }),
    user: Nullable(DashboardUserSchema),
  },
  { additionalProperties: false, title: 'DashboardSession' },
);
export type DashboardSession = Static<typeof DashboardSessionSchema>;

export const TotpEnrollmentSchema = Type.Object(
  {
    type: Type.Literal('totp-enrollment'),
    secret: Type.String({ description: 'Base32 secret, shown once, for typing into an authenticator app' }),
    otpauth_uri: Type.String({ description: 'otpauth:// URI (as a QR code) holding the same secret' }),
  },
  { additionalProperties: false, title: 'TotpEnrollment' },
);

export const SetupResultSchema = Type.Object(
  {
    type: Type.Literal('dashboard-setup'),
    email: Type.String(),
    second_factor_required: Type.Boolean({ description: 'The user must enrol a second factor at its first sign-in' }),
    totp_enrolled: Type.Boolean(),
  },
  { additionalProperties: false, title: 'DashboardSetup' },
);
export type SetupResult = Static<typeof SetupResultSchema>;

export function toDashboardUserResource(
  user: DashboardUserRow,
  memberships: readonly DashboardMembershipRow[],
): DashboardUser {
  const byAccount = new Map<string | null, string[]>();
  for (const m of memberships)
    byAccount.set(m.merchant_account_id, [...(byAccount.get(m.merchant_account_id) ?? []), m.role]);
  return {
    type: 'dashboard-user',
    id: user.id,
    email: user.email,
    display_name: user.display_name,
    status: user.status,
    totp_enrolled: user.totp_confirmed_at !== null,
    second_factor_required: requiresSecondFactor(memberships),
    memberships: [...byAccount].map(([merchantAccountId, roles]) => ({
      merchant_account_id: merchantAccountId,
      roles: roles.sort(),
      scopes: scopesOfRoles(roles),
    })),
  };
}

export function toDashboardSessionResource(
  session: DashboardSessionRow,
  user: DashboardUser | null,
  secondFactors: DashboardSession['second_factors'],
): DashboardSession {
  return {
    type: 'dashboard-session',
    stage: session.stage,
    second_factors: secondFactors,
    csrf_token: session.csrf_token,
    expires_at: session.expires_at.toISOString(),
    user: session.stage === 'second-factor' ? null : user,
  };
}
