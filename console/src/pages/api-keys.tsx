import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { del, post } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { hasScope } from '../session.ts';
import { useCursorList } from '../ui/async.ts';
import { ConfirmAction, ErrorNotice, Field, ListTable, PageHeader, Status, useAction } from '../ui/components.tsx';
import { dateTime } from '../ui/format.ts';

interface ApiKeyPair {
  id: string;
  display_name: string;
  thumbprint: string;
  merchant_account_id: string | null;
  active: boolean;
  private_key: string | null;
  created_at: string;
}

export function ApiKeysPage({ scopes }: PageProps): JSX.Element {
  const list = useCursorList<ApiKeyPair>('/api-key-pairs', {});
  const [created, setCreated] = useState<ApiKeyPair | null>(null);
  const remove = useAction();
  const canWrite = hasScope(scopes, 'api-key-pairs.write');
  return (
    <section>
      <PageHeader title="API keys" />
      {canWrite ? (
        <CreateKey
          onCreated={(key) => {
            setCreated(key);
            list.reload();
          }}
        />
      ) : null}
      {created?.private_key ? <PrivateKey pair={created} onDone={() => setCreated(null)} /> : null}
      <ErrorNotice error={remove.error} />
      <ListTable
        list={list}
        caption="API key pairs"
        empty="No API key yet."
        rowKey={(k) => k.id}
        columns={[
          { title: 'Name', cell: (k) => k.display_name },
          { title: 'Key id (kid)', cell: (k) => <code class="wrap">{k.thumbprint}</code> },
          { title: 'Merchant account', cell: (k) => k.merchant_account_id ?? 'every account' },
          { title: 'State', cell: (k) => <Status value={k.active ? 'active' : 'revoked'} /> },
          { title: 'Created', cell: (k) => dateTime(k.created_at) },
          ...(canWrite
            ? [
                {
                  title: 'Delete',
                  cell: (k: ApiKeyPair) => (
                    <ConfirmAction
                      label={`Delete ${k.display_name}`}
                      danger
                      question="Delete this key? Its tokens stop working at once."
                      confirmLabel="Delete"
                      onConfirm={() =>
                        remove.run(async () => {
                          await del(`/api-key-pairs/${k.id}`);
                          list.reload();
                        })
                      }
                    />
                  ),
                },
              ]
            : []),
        ]}
      />
    </section>
  );
}

function CreateKey({ onCreated }: { onCreated: (key: ApiKeyPair) => void }): JSX.Element {
  const [name, setName] = useState('');
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      onCreated(await post<ApiKeyPair>('/api-key-pairs', { display_name: name }));
      setName('');
    });
  };
  return (
    <form class="card inline-form" onSubmit={submit}>
      <h2>Create an API key</h2>
      <ErrorNotice error={action.error} />
      <Field label="Name" hint="e.g. the system that will hold the private key">
        <input
          name="display_name"
          required
          maxLength={200}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </Field>
      <button type="submit" disabled={action.busy}>
        Create key
      </button>
    </form>
  );
}

/** The private key exists only in this answer: shown once, never stored by the server. */
function PrivateKey({ pair, onDone }: { pair: ApiKeyPair; onDone: () => void }): JSX.Element {
  return (
    <section class="card once" aria-labelledby="private-key-title">
      <h2 id="private-key-title">Private key of {pair.display_name}</h2>
      <p>
        <strong>Copy it now: it is shown this once and cannot be shown again.</strong> Keep it in your secret store; it
        signs the tokens of this key (kid {pair.thumbprint}).
      </p>
      <textarea
        readOnly
        rows={8}
        class="mono"
        aria-label="Private key (PEM)"
        data-testid="private-key"
        value={pair.private_key ?? ''}
      />
      <button type="button" onClick={onDone}>
        I have stored it
      </button>
    </section>
  );
}
