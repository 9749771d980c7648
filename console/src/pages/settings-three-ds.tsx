import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { del, get, post, put } from '../api.ts';
import { useAsync } from '../ui/async.ts';
import {
  ConfirmAction,
  Empty,
  ErrorNotice,
  Field,
  Loading,
  ScrollRegion,
  Success,
  useAction,
} from '../ui/components.tsx';
import { EMPTY_THREE_DS, THREE_DS_FIELDS, threeDsBody, type ThreeDsDraft } from './settings-forms.ts';

type ThreeDsConfiguration = Omit<ThreeDsDraft, 'currency'> & {
  id: string;
  currency: string | null;
  created_at: string;
};

const draftOf = (c: ThreeDsConfiguration): ThreeDsDraft => {
  const draft = { ...EMPTY_THREE_DS };
  for (const [key] of THREE_DS_FIELDS) draft[key] = c[key] ?? '';
  return draft;
};

/** The 3-D Secure configurations of the account viewed: list, create, edit and delete (merchant-accounts.write). */
export function ThreeDsConfigurations({ account, canWrite }: { account: string; canWrite: boolean }): JSX.Element {
  const base = `/merchant-accounts/${encodeURIComponent(account)}/three-ds-configurations`;
  const list = useAsync(() => get<{ items: ThreeDsConfiguration[] }>(base), base);
  const remove = useAction();
  const [editing, setEditing] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const changed = (text: string) => {
    setEditing(null);
    setDone(text);
    list.reload();
  };
  return (
    <section class="card" aria-labelledby="three-ds-title">
      <h2 id="three-ds-title">3-D Secure configurations of {account}</h2>
      {done ? <Success>{done}</Success> : null}
      <ErrorNotice error={remove.error} />
      {list.error ? (
        <ErrorNotice error={list.error} />
      ) : !list.data ? (
        <Loading />
      ) : list.data.items.length === 0 ? (
        <Empty>No 3-D Secure configuration.</Empty>
      ) : (
        <ScrollRegion label="3-D Secure configurations">
          <table>
            <caption class="visually-hidden">3-D Secure configurations</caption>
            <thead>
              <tr>
                <th scope="col">Scheme</th>
                <th scope="col">Currency</th>
                <th scope="col">Merchant name</th>
                <th scope="col">Acquirer BIN</th>
                <th scope="col">Acquirer merchant id</th>
                {canWrite ? <th scope="col">Change</th> : null}
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((c) => (
                <tr key={c.id}>
                  <td>{c.scheme}</td>
                  <td>{c.currency ?? 'any'}</td>
                  <td>{c.merchant_name}</td>
                  <td>{c.merchant_acquirer_bin}</td>
                  <td>{c.merchant_acquirer_id}</td>
                  {canWrite ? (
                    <td>
                      <span class="actions">
                        <button
                          type="button"
                          class="secondary"
                          aria-expanded={editing === c.id}
                          onClick={() => setEditing(editing === c.id ? null : c.id)}
                        >
                          Edit {c.scheme} {c.currency ?? 'any currency'}
                        </button>
                        <ConfirmAction
                          label={`Delete ${c.scheme} ${c.currency ?? 'any currency'}`}
                          danger
                          question="Delete this configuration?"
                          onConfirm={() =>
                            remove.run(async () => {
                              await del(`${base}/${c.id}`);
                              changed('Configuration deleted.');
                            })
                          }
                        />
                      </span>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {canWrite && editing && list.data?.items.some((c) => c.id === editing) ? (
        <ThreeDsForm
          key={editing}
          title="Edit the configuration"
          original={draftOf(list.data.items.find((c) => c.id === editing)!)}
          submitLabel="Save configuration"
          send={(draft, original) => put(`${base}/${editing}`, threeDsBody(draft, original))}
          onDone={() => changed('Configuration saved.')}
        />
      ) : null}
      {canWrite ? (
        <ThreeDsForm
          key={`new-${list.data?.items.length ?? 0}`}
          title="Add a configuration"
          original={EMPTY_THREE_DS}
          submitLabel="Add configuration"
          send={(draft) => post(base, threeDsBody(draft))}
          onDone={() => changed('Configuration added.')}
        />
      ) : null}
    </section>
  );
}

function ThreeDsForm(props: {
  title: string;
  original: ThreeDsDraft;
  submitLabel: string;
  send: (draft: ThreeDsDraft, original: ThreeDsDraft) => Promise<unknown>;
  onDone: () => void;
}): JSX.Element {
  const [form, setForm] = useState<ThreeDsDraft>(props.original);
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await props.send(form, props.original);
      props.onDone();
    });
  };
  return (
    <form class="form" onSubmit={submit} aria-label={props.title}>
      <h3>{props.title}</h3>
      <ErrorNotice error={action.error} />
      <div class="filter-grid">
        {THREE_DS_FIELDS.map(([key, title, example]) => (
          <Field label={title} key={key}>
            <input
              name={key}
              required={key !== 'currency'}
              placeholder={example}
              value={form[key]}
              onInput={(e) => setForm({ ...form, [key]: e.currentTarget.value })}
            />
          </Field>
        ))}
      </div>
      <button type="submit" disabled={action.busy}>
        {props.submitLabel}
      </button>
    </form>
  );
}
