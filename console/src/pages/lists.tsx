import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { hasScope } from '../session.ts';
import { useCursorList } from '../ui/async.ts';
import {
  ConfirmAction,
  ErrorNotice,
  Field,
  ListTable,
  PageHeader,
  Status,
  Success,
  useAction,
} from '../ui/components.tsx';
import { dateTime, money, toMinor } from '../ui/format.ts';

interface PaymentLink {
  id: string;
  url: string;
  status: string;
  amount: number;
  currency: string;
  external_identifier: string | null;
  expires_at: string | null;
  created_at: string;
}

export function PaymentLinksPage({ scopes }: PageProps): JSX.Element {
  const list = useCursorList<PaymentLink>('/payment-links', {});
  const expire = useAction();
  const [copied, setCopied] = useState<string | null>(null);
  const canWrite = hasScope(scopes, 'payment-links.write');
  const copy = async (link: PaymentLink) => {
    await navigator.clipboard?.writeText(link.url).catch(() => undefined);
    setCopied(link.url);
  };
  return (
    <section>
      <PageHeader title="Payment links" />
      {canWrite ? (
        <CreatePaymentLink
          onCreated={(link) => {
            setCopied(link.url);
            list.reload();
          }}
        />
      ) : null}
      {copied ? (
        <Success>
          Link: <code class="wrap">{copied}</code>
        </Success>
      ) : null}
      <ErrorNotice error={expire.error} />
      <ListTable
        list={list}
        caption="Payment links"
        empty="No payment link yet."
        rowKey={(l) => l.id}
        columns={[
          { title: 'Created', cell: (l) => dateTime(l.created_at) },
          { title: 'Amount', class: 'num', cell: (l) => money(l.amount, l.currency) },
          { title: 'Status', cell: (l) => <Status value={l.status} /> },
          { title: 'External identifier', cell: (l) => l.external_identifier ?? '—' },
          { title: 'Expires', cell: (l) => dateTime(l.expires_at) },
          {
            title: 'Link',
            cell: (l) => (
              <button type="button" class="secondary" onClick={() => void copy(l)}>
                Copy link
              </button>
            ),
          },
          ...(canWrite
            ? [
                {
                  title: 'Expire',
                  cell: (l: PaymentLink) =>
                    l.status === 'active' ? (
                      <ConfirmAction
                        label="Expire"
                        danger
                        question="Expire this link now?"
                        onConfirm={() =>
                          expire.run(async () => {
                            await post(`/payment-links/${l.id}/expire`);
                            list.reload();
                          })
                        }
                      />
                    ) : null,
                },
              ]
            : []),
        ]}
      />
    </section>
  );
}

function CreatePaymentLink({ onCreated }: { onCreated: (link: PaymentLink) => void }): JSX.Element {
  const [form, setForm] = useState({ amount: '', currency: 'EUR', country: 'DE', external_identifier: '' });
  const action = useAction();
  const set = (key: keyof typeof form) => (e: Event) =>
    setForm({ ...form, [key]: (e.currentTarget as HTMLInputElement).value });
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const amount = toMinor(form.amount, form.currency.toUpperCase());
      if (amount === null) throw new Error('Enter an amount such as 12.50');
      onCreated(
        await post<PaymentLink>('/payment-links', {
          amount,
          currency: form.currency.toUpperCase(),
          country: form.country.toUpperCase(),
          ...(form.external_identifier ? { external_identifier: form.external_identifier } : {}),
        }),
      );
    });
  };
  return (
    <form class="card inline-form" onSubmit={submit}>
      <h2>Create a payment link</h2>
      <ErrorNotice error={action.error} />
      <Field label="Amount">
        <input name="amount" inputMode="decimal" required value={form.amount} onInput={set('amount')} />
      </Field>
      <Field label="Currency">
        <input name="currency" required maxLength={3} size={4} value={form.currency} onInput={set('currency')} />
      </Field>
      <Field label="Country">
        <input name="country" required maxLength={2} size={3} value={form.country} onInput={set('country')} />
      </Field>
      <Field label="External identifier (optional)">
        <input name="external_identifier" value={form.external_identifier} onInput={set('external_identifier')} />
      </Field>
      <button type="submit" disabled={action.busy}>
        Create link
      </button>
    </form>
  );
}
