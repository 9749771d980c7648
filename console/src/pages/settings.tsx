import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { get, put } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { hasScope, sessionState } from '../session.ts';
import { useAsync, useCursorList } from '../ui/async.ts';
import { ErrorNotice, Field, ListTable, Loading, PageHeader, Success, useAction } from '../ui/components.tsx';
import { dateTime } from '../ui/format.ts';
import {
  ACCOUNT_NUMBER_FIELDS,
  ACCOUNT_SWITCHES,
  ACCOUNT_TEXT_FIELDS,
  accountChanges,
  accountDraft,
  type AccountDraft,
} from './settings-forms.ts';
import { ThreeDsConfigurations } from './settings-three-ds.tsx';

interface MerchantAccount {
  id: string;
  display_name: string;
  created_at: string;
  updated_at: string;
}

/** Merchant accounts (edit one with merchant-accounts.write) and the 3-D Secure configurations of the account viewed. */
export function SettingsPage({ scopes }: PageProps): JSX.Element {
  const account = sessionState().account ?? 'default';
  const accounts = useCursorList<MerchantAccount>('/merchant-accounts', {});
  const canWrite = hasScope(scopes, 'merchant-accounts.write');
  const [editing, setEditing] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <section>
      <PageHeader title="Settings" />
      <section class="card" aria-labelledby="accounts-title">
        <h2 id="accounts-title">Merchant accounts</h2>
        {saved ? <Success>{saved}</Success> : null}
        <ListTable
          list={accounts}
          caption="Merchant accounts"
          empty="No merchant account."
          rowKey={(a) => a.id}
          columns={[
            { title: 'Id', cell: (a) => <code>{a.id}</code> },
            { title: 'Name', cell: (a) => a.display_name },
            { title: 'Created', cell: (a) => dateTime(a.created_at) },
            ...(canWrite
              ? [
                  {
                    title: 'Edit',
                    cell: (a: MerchantAccount) => (
                      <button
                        type="button"
                        class="secondary"
                        aria-expanded={editing === a.id}
                        onClick={() => {
                          setSaved(null);
                          setEditing(editing === a.id ? null : a.id);
                        }}
                      >
                        Edit {a.display_name}
                      </button>
                    ),
                  },
                ]
              : []),
          ]}
        />
        {editing ? (
          <EditAccount
            key={editing}
            id={editing}
            onCancel={() => setEditing(null)}
            onSaved={(name) => {
              setEditing(null);
              setSaved(`Saved ${name}.`);
              accounts.reload();
            }}
          />
        ) : null}
      </section>
      <ThreeDsConfigurations account={account} canWrite={canWrite} />
    </section>
  );
}

function EditAccount(props: { id: string; onSaved: (name: string) => void; onCancel: () => void }): JSX.Element {
  const loaded = useAsync(async () => {
    const account = await get<Record<string, unknown>>(`/merchant-accounts/${encodeURIComponent(props.id)}`);
    return accountDraft(account);
  }, props.id);
  if (loaded.error) return <ErrorNotice error={loaded.error} />;
  if (!loaded.data) return <Loading />;
  return <AccountForm {...props} original={loaded.data} />;
}

function AccountForm(props: {
  id: string;
  original: AccountDraft;
  onSaved: (name: string) => void;
  onCancel: () => void;
}): JSX.Element {
  const [form, setForm] = useState<AccountDraft>(props.original);
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const changes = accountChanges(props.original, form);
      if ('error' in changes) throw new Error(changes.error);
      const saved = await put<{ display_name: string }>(
        `/merchant-accounts/${encodeURIComponent(props.id)}`,
        changes.body,
      );
      props.onSaved(saved.display_name);
    });
  };
  return (
    <form class="form" onSubmit={submit} aria-label={`Edit merchant account ${props.id}`}>
      <h3>Edit {props.id}</h3>
      <ErrorNotice error={action.error} />
      <div class="filter-grid">
        {[...ACCOUNT_TEXT_FIELDS, ...ACCOUNT_NUMBER_FIELDS].map(([key, title]) => (
          <Field label={title} key={key}>
            <input
              name={key}
              inputMode={ACCOUNT_NUMBER_FIELDS.some(([k]) => k === key) ? 'numeric' : undefined}
              value={String(form[key] ?? '')}
              onInput={(e) => setForm({ ...form, [key]: e.currentTarget.value })}
            />
          </Field>
        ))}
      </div>
      {ACCOUNT_SWITCHES.map(([key, title]) => (
        <label class="check" key={key}>
          <input
            type="checkbox"
            name={key}
            checked={form[key] === true}
            onChange={(e) => setForm({ ...form, [key]: e.currentTarget.checked })}
          />
          {title}
        </label>
      ))}
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          Save account
        </button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
