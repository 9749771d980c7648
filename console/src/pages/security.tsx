import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { del, get } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { loadSession, setSession } from '../session.ts';
import { useAsync } from '../ui/async.ts';
import {
  ConfirmAction,
  Empty,
  ErrorNotice,
  Field,
  Loading,
  PageHeader,
  Success,
  useAction,
} from '../ui/components.tsx';
import { dateTime } from '../ui/format.ts';
import { addPasskey, passkeysSupported } from '../webauthn.ts';

interface Passkey {
  id: string;
  name: string;
  transports: string[];
  created_at: string;
  last_used_at: string | null;
}

/** The signed-in user's own second factors: its authenticator app, its passkeys (add, remove). */
export function SecurityPage({ user }: PageProps): JSX.Element {
  const list = useAsync(
    () => get<{ items: Passkey[] }>('/dashboard/api/session/passkeys', { noAccount: true }),
    'passkeys',
  );
  const remove = useAction();
  const [added, setAdded] = useState<string | null>(null);
  const passkeys = list.data?.items;
  return (
    <section>
      <PageHeader title="Sign-in security" />
      <h2>Authenticator app</h2>
      <p>{user.totp_enrolled ? 'An authenticator app gives your sign-in codes.' : 'No authenticator app is set up.'}</p>
      <h2>Passkeys</h2>
      <p>
        A passkey completes your sign-in after the password, instead of a code
        {user.second_factor_required ? '. Your role requires a second factor: the last one cannot be removed.' : '.'}
      </p>
      {added ? <Success>Passkey "{added}" added.</Success> : null}
      <ErrorNotice error={list.error ?? remove.error} />
      {!passkeys ? (
        list.error ? null : (
          <Loading />
        )
      ) : passkeys.length === 0 ? (
        <Empty>No passkey yet.</Empty>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Your passkeys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Added</th>
                <th scope="col">Last used</th>
                <th scope="col">Remove</th>
              </tr>
            </thead>
            <tbody>
              {passkeys.map((p) => (
                <tr key={p.id}>
                  <td>{p.name}</td>
                  <td>{dateTime(p.created_at)}</td>
                  <td>{p.last_used_at ? dateTime(p.last_used_at) : 'never'}</td>
                  <td>
                    <ConfirmAction
                      label={`Remove ${p.name}`}
                      danger
                      question="Remove this passkey? It will no longer sign you in."
                      confirmLabel="Remove"
                      onConfirm={() =>
                        remove.run(async () => {
                          await del(`/dashboard/api/session/passkeys/${encodeURIComponent(p.id)}`);
                          setAdded(null);
                          list.reload();
                          await loadSession();
                        })
                      }
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AddPasskey
        onAdded={(name) => {
          setAdded(name);
          list.reload();
        }}
      />
    </section>
  );
}

function AddPasskey({ onAdded }: { onAdded: (name: string) => void }): JSX.Element {
  const [name, setName] = useState('');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      setSession(await addPasskey(name));
      onAdded(name.trim() || 'Passkey');
      setName('');
    });
  };
  return (
    <form onSubmit={submit}>
      <h3>Add a passkey</h3>
      <ErrorNotice error={action.error} />
      {passkeysSupported() ? null : <p class="field-error">This browser cannot create passkeys here.</p>}
      <Field label="Passkey name" hint="To tell your passkeys apart, e.g. Work laptop">
        <input name="passkey-name" maxLength={64} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <button type="submit" disabled={action.busy || !passkeysSupported()}>
        Add passkey
      </button>
    </form>
  );
}
