import type { JSX } from 'preact';
import { get } from '../api.ts';
import { useAsync } from '../ui/async.ts';

interface SsoOptions {
  enabled: boolean;
  name: string | null;
  start_url: string | null;
}

/** What each `?sso_error=` code the server sends the browser back with means to the person signing in. */
export const SSO_ERRORS: Record<string, string> = {
  expired: 'The single sign-on took too long or was started in another window. Try again.',
  provider: 'The identity provider did not sign you in. Try again, or sign in with your password.',
  no_email: 'The identity provider gave no e-mail address for you. Ask your administrator.',
  unverified_email: 'The identity provider has not verified your e-mail address.',
  unknown_user: 'You have no dashboard account yet. Ask an administrator to invite you.',
  disabled: 'Your dashboard account is disabled. Ask an administrator.',
  roles: 'The identity provider gave you roles the dashboard does not know. Ask your administrator.',
  no_role: 'You have no role in any merchant account. Ask an administrator.',
  identity_mismatch: 'This e-mail address belongs to another identity of the provider. Ask an administrator.',
};

/** The "Sign in with …" button when the server offers single sign-on, and the reason a last try failed. */
export function SingleSignOn(): JSX.Element | null {
  const options = useAsync(() => get<SsoOptions>('/dashboard/api/sso', { noAccount: true, keepOn401: true }), 'sso');
  const failed = new URLSearchParams(location.search).get('sso_error');
  const message = failed ? (SSO_ERRORS[failed] ?? SSO_ERRORS.provider) : null;
  const sso = options.data;
  if (!message && !sso?.enabled) return null;
  const returnTo = location.pathname.replace(/^\/dashboard/, '') || '/';
  return (
    <div class="sso">
      {message ? (
        <p class="notice error" role="alert">
          {message}
        </p>
      ) : null}
      {sso?.enabled && sso.start_url ? (
        <a class="button secondary" href={`${sso.start_url}?return_to=${encodeURIComponent(returnTo)}`}>
          Sign in with {sso.name}
        </a>
      ) : null}
    </div>
  );
}
