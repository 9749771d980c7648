import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { post } from '../api.ts';
import { navigate } from '../router.tsx';
import { setSession, type DashboardSession } from '../session.ts';
import { ErrorNotice, Field, useAction } from '../ui/components.tsx';
import { addPasskey, passkeyAnswer, passkeysSupported } from '../webauthn.ts';
import { SingleSignOn } from './single-sign-on.tsx';

const NO_ACCOUNT = { noAccount: true, keepOn401: true } as const;

/** Email and password; then the authenticator code, or the enrolment of one when the role requires it. */
export function SignInPage({ session }: { session: DashboardSession | null }): JSX.Element {
  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <p class="brand">svc dashboard</p>
        {session?.stage === 'second-factor' ? (
          <SecondFactorForm factors={session.second_factors} />
        ) : session?.stage === 'enrollment' ? (
          <EnrollForm />
        ) : (
          <>
            <PasswordForm />
            <SingleSignOn />
          </>
        )}
      </div>
    </main>
  );
}

function PasswordForm(): JSX.Element {
  const [email, setEmail] = useState(new URLSearchParams(location.search).get('email') ?? '');
  const [password, setPassword] = useState('');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () =>
      setSession(await post<DashboardSession>('/dashboard/api/session', { email, password }, NO_ACCOUNT)),
    );
  };
  return (
    <form onSubmit={submit}>
      <h1>Sign in</h1>
      <ErrorNotice error={action.error} />
      <Field label="E-mail address">
        <input
          type="email"
          name="email"
          autocomplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
      </Field>
      <Field label="Password">
        <input
          type="password"
          name="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </Field>
      <button type="submit" disabled={action.busy}>
        Sign in
      </button>
    </form>
  );
}

function CodeInput({ value, onInput }: { value: string; onInput: (value: string) => void }): JSX.Element {
  return (
    <Field label="6-digit code from your authenticator app">
      <input
        name="code"
        inputMode="numeric"
        autocomplete="one-time-code"
        pattern="[0-9]{6}"
        maxLength={6}
        required
        value={value}
        onInput={(e) => onInput(e.currentTarget.value.trim())}
      />
    </Field>
  );
}

/** The second step: the authenticator code, a passkey, or either, as the user has them. */
function SecondFactorForm({ factors }: { factors: Array<'totp' | 'passkey'> }): JSX.Element {
  const [code, setCode] = useState('');
  const action = useAction();
  const passkey = useAction();
  const hasTotp = factors.includes('totp');
  const hasPasskey = factors.includes('passkey');
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () =>
      setSession(await post<DashboardSession>('/dashboard/api/session/totp', { code }, NO_ACCOUNT)),
    );
  };
  return (
    <form onSubmit={submit}>
      <h1>Second factor</h1>
      <ErrorNotice error={action.error ?? passkey.error} />
      {hasPasskey ? (
        <button
          type="button"
          class={hasTotp ? 'secondary' : ''}
          disabled={passkey.busy || !passkeysSupported()}
          onClick={() => void passkey.run(async () => setSession(await passkeyAnswer()))}
        >
          Use a passkey
        </button>
      ) : null}
      {hasTotp ? (
        <>
          <CodeInput value={code} onInput={setCode} />
          <button type="submit" disabled={action.busy}>
            Verify
          </button>
        </>
      ) : null}
      <button type="button" class="link" onClick={() => setSession(null)}>
        Use another account
      </button>
    </form>
  );
}

interface Enrollment {
  secret: string;
  otpauth_uri: string;
}

/** Administrators must have a second factor: an authenticator app (the default) or a passkey. */
function EnrollForm(): JSX.Element {
  const [method, setMethod] = useState<'totp' | 'passkey'>('totp');
  return (
    <div>
      {method === 'totp' ? <TotpEnrollForm /> : <PasskeyEnrollForm />}
      <p>
        <button type="button" class="link" onClick={() => setMethod(method === 'totp' ? 'passkey' : 'totp')}>
          {method === 'totp' ? 'Use a passkey instead' : 'Use an authenticator app instead'}
        </button>
      </p>
    </div>
  );
}

function PasskeyEnrollForm(): JSX.Element {
  const [name, setName] = useState('');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      setSession(await addPasskey(name));
      navigate('/', true);
    });
  };
  return (
    <form onSubmit={submit}>
      <h1>Set up a passkey</h1>
      <p>
        Your role requires a second factor. A passkey lives on this device, a phone or a security key; your browser will
        ask you to create one.
      </p>
      <ErrorNotice error={action.error} />
      {passkeysSupported() ? null : <p class="field-error">This browser cannot create passkeys here.</p>}
      <Field label="Passkey name" hint="To tell your passkeys apart, e.g. Work laptop">
        <input name="passkey-name" maxLength={64} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <button type="submit" disabled={action.busy || !passkeysSupported()}>
        Create passkey
      </button>
    </form>
  );
}

/** The secret is shown once, to type or paste into an app. */
function TotpEnrollForm(): JSX.Element {
  const [enrollment, setEnrollment] = useState<Enrollment | null>(null);
  const [code, setCode] = useState('');
  const start = useAction();
  const confirm = useAction();
  useEffect(() => {
    void start.run(async () =>
      setEnrollment(await post<Enrollment>('/dashboard/api/session/totp-enrollment', undefined, NO_ACCOUNT)),
    );
  }, []);
  const submit = (event: Event) => {
    event.preventDefault();
    void confirm.run(async () => {
      setSession(await post<DashboardSession>('/dashboard/api/session/totp-enrollment/confirm', { code }, NO_ACCOUNT));
      navigate('/', true);
    });
  };
  return (
    <form onSubmit={submit}>
      <h1>Set up your authenticator app</h1>
      <p>Your role requires a second factor. Add this account to an authenticator app, then enter the code it shows.</p>
      <ErrorNotice error={start.error ?? confirm.error} />
      {enrollment ? (
        <dl class="secret">
          <dt>Secret key (type it into the app)</dt>
          <dd>
            <code data-testid="totp-secret">{enrollment.secret}</code>
          </dd>
          <dt>Set-up address (otpauth URI)</dt>
          <dd>
            <code class="wrap" data-testid="totp-uri">
              {enrollment.otpauth_uri}
            </code>
          </dd>
        </dl>
      ) : null}
      <CodeInput value={code} onInput={setCode} />
      <button type="submit" disabled={confirm.busy || !enrollment}>
        Confirm
      </button>
    </form>
  );
}

interface SetupResult {
  email: string;
  second_factor_required: boolean;
}

/** /dashboard/setup?token=…, the link `svc users create` prints: choose a password. */
export function SetupPage({ token }: { token: string }): JSX.Element {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [done, setDone] = useState<SetupResult | null>(null);
  const action = useAction();
  const mismatch = again !== '' && password !== again;
  const submit = (event: Event) => {
    event.preventDefault();
    if (mismatch) return;
    void action.run(async () =>
      setDone(await post<SetupResult>('/dashboard/api/setup', { token, password }, NO_ACCOUNT)),
    );
  };
  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <p class="brand">svc dashboard</p>
        {done ? (
          <div>
            <h1>Password set</h1>
            <p>
              Sign in as <strong>{done.email}</strong>.
              {done.second_factor_required
                ? ' You will then add an authenticator app or a passkey: your role requires a second factor.'
                : ''}
            </p>
            <button type="button" onClick={() => navigate(`/?email=${encodeURIComponent(done.email)}`, true)}>
              Sign in
            </button>
          </div>
        ) : (
          <form onSubmit={submit}>
            <h1>Choose your password</h1>
            <p>At least 12 characters, not made of your e-mail address.</p>
            <ErrorNotice error={action.error} />
            <Field label="New password">
              <input
                type="password"
                name="new-password"
                autocomplete="new-password"
                minLength={12}
                required
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
            </Field>
            <Field label="The same password again">
              <input
                type="password"
                name="repeat-password"
                autocomplete="new-password"
                required
                value={again}
                onInput={(e) => setAgain(e.currentTarget.value)}
                aria-invalid={mismatch}
              />
            </Field>
            {mismatch ? <p class="field-error">The two passwords differ.</p> : null}
            <button type="submit" disabled={action.busy || token === ''}>
              Set password
            </button>
          </form>
        )}
      </div>
    </main>
  );
}
