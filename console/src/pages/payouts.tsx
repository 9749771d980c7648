import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { get, post, type ListPage } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { Link } from '../router.tsx';
import { hasScope } from '../session.ts';
import { useAsync, useCursorList } from '../ui/async.ts';
import { ErrorNotice, Field, ListTable, Loading, PageHeader, Status, Success, useAction } from '../ui/components.tsx';
import { dateTime, label, money } from '../ui/format.ts';
import { payoutBody, type PayoutDraft } from './payout-body.ts';

interface Payout {
  id: string;
  amount: number;
  currency: string;
  status: string;
  category: string | null;
  external_identifier: string | null;
  payment_service_payout_id: string | null;
  created_at: string;
  updated_at: string;
  payment_method: { method: string; scheme: string | null; label: string | null; expiration_date: string | null };
  payment_service: { id: string | null; display_name: string | null; payment_service_definition_id: string };
  buyer: { id: string | null; display_name: string | null; external_identifier: string | null } | null;
  merchant: { name: string; identification_number: string; statement_descriptor: string | null } | null;
}

const STATUSES = ['pending', 'succeeded', 'declined', 'failed'] as const;
const EMPTY = {
  status: '',
  external_identifier: '',
  payment_service_payout_id: '',
  created_at_gte: '',
  created_at_lte: '',
};
type Filters = typeof EMPTY;

/** A date input (local midnight) as the API's date-time with offset. */
const isoDate = (value: string, endOfDay: boolean) =>
  value ? new Date(`${value}T${endOfDay ? '23:59:59' : '00:00:00'}`).toISOString() : '';

const card = (p: Payout) =>
  [p.payment_method.scheme ?? p.payment_method.method, p.payment_method.label ? `•••• ${p.payment_method.label}` : '']
    .filter(Boolean)
    .join(' ');

/** Payouts to cards: create one (payouts.write), the list with the filters of GET /payouts, each one's detail. */
export function PayoutsPage({ scopes }: PageProps): JSX.Element {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [made, setMade] = useState<Payout | null>(null);
  const list = useCursorList<Payout>('/payouts', {
    ...applied,
    created_at_gte: isoDate(applied.created_at_gte, false),
    created_at_lte: isoDate(applied.created_at_lte, true),
  });
  const set = (key: keyof Filters) => (e: Event) =>
    setDraft({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value });
  return (
    <section>
      <PageHeader title="Payouts" />
      {hasScope(scopes, 'payouts.write') ? (
        <CreatePayout
          canListServices={hasScope(scopes, 'payment-services.read')}
          onCreated={(payout) => {
            setMade(payout);
            list.reload();
          }}
        />
      ) : null}
      {made ? (
        <Success>
          Payout of {money(made.amount, made.currency)}: {label(made.status)}.{' '}
          <Link href={`/payouts/${made.id}`}>See the payout</Link>
        </Success>
      ) : null}
      <form
        class="filters"
        aria-label="Filter payouts"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(draft);
        }}
      >
        <Field label="Status">
          <select name="status" value={draft.status} onChange={set('status')}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </Field>
        <Field label="External identifier">
          <input name="external_identifier" value={draft.external_identifier} onInput={set('external_identifier')} />
        </Field>
        <details class="more-filters">
          <summary>More filters</summary>
          <div class="filter-grid">
            <Field label="Payment service's payout id">
              <input
                name="payment_service_payout_id"
                value={draft.payment_service_payout_id}
                onInput={set('payment_service_payout_id')}
              />
            </Field>
            <Field label="Created from">
              <input type="date" name="created_at_gte" value={draft.created_at_gte} onInput={set('created_at_gte')} />
            </Field>
            <Field label="Created until">
              <input type="date" name="created_at_lte" value={draft.created_at_lte} onInput={set('created_at_lte')} />
            </Field>
          </div>
        </details>
        <div class="filter-actions">
          <button type="submit">Apply</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setDraft(EMPTY);
              setApplied(EMPTY);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <ListTable
        list={list}
        caption="Payouts"
        empty="No payout matches."
        rowKey={(p) => p.id}
        columns={[
          { title: 'Created', cell: (p) => <Link href={`/payouts/${p.id}`}>{dateTime(p.created_at)}</Link> },
          { title: 'Amount', class: 'num', cell: (p) => money(p.amount, p.currency) },
          { title: 'Status', cell: (p) => <Status value={p.status} /> },
          { title: 'Card', cell: card },
          { title: 'External identifier', cell: (p) => p.external_identifier ?? '—' },
          { title: 'Payment service', cell: (p) => p.payment_service.display_name ?? '—' },
        ]}
      />
    </section>
  );
}

const NEW: PayoutDraft = {
  amount: '',
  currency: 'EUR',
  payment_service_id: '',
  destination: 'card',
  number: '',
  expiration_date: '',
  stored_card_id: '',
  external_identifier: '',
  category: '',
};

function CreatePayout(props: { canListServices: boolean; onCreated: (payout: Payout) => void }): JSX.Element {
  const [form, setForm] = useState<PayoutDraft>(NEW);
  const action = useAction();
  const services = useAsync(
    () =>
      props.canListServices
        ? get<ListPage<{ id: string; display_name: string; active: boolean }>>('/payment-services?limit=100')
        : Promise.resolve(null),
    'payout-services',
  );
  const set = (key: keyof PayoutDraft) => (e: Event) =>
    setForm({ ...form, [key]: (e.currentTarget as HTMLInputElement).value });
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const built = payoutBody(form);
      if ('error' in built) throw new Error(built.error);
      const payout = await post<Payout>('/payouts', built.body);
      // The card number is not kept in the page once sent.
      setForm({ ...NEW, payment_service_id: form.payment_service_id, currency: form.currency });
      props.onCreated(payout);
    });
  };
  const active = (services.data?.items ?? []).filter((s) => s.active);
  return (
    <form class="card form" onSubmit={submit} aria-labelledby="new-payout">
      <h2 id="new-payout">Create a payout</h2>
      <ErrorNotice error={action.error} />
      <div class="filter-grid">
        <Field label="Amount">
          <input name="amount" inputMode="decimal" required value={form.amount} onInput={set('amount')} />
        </Field>
        <Field label="Currency">
          <input name="currency" required maxLength={3} size={4} value={form.currency} onInput={set('currency')} />
        </Field>
        <Field label="Payment service">
          {props.canListServices ? (
            <select
              name="payment_service_id"
              required
              value={form.payment_service_id}
              onChange={set('payment_service_id')}
            >
              <option value="">Choose…</option>
              {active.map((s) => (
                <option value={s.id} key={s.id}>
                  {s.display_name}
                </option>
              ))}
            </select>
          ) : (
            <input
              name="payment_service_id"
              required
              value={form.payment_service_id}
              onInput={set('payment_service_id')}
            />
          )}
        </Field>
        <Field label="Category (optional)">
          <select name="category" value={form.category} onChange={set('category')}>
            <option value="">None</option>
            <option value="online_gambling">online gambling</option>
          </select>
        </Field>
        <Field label="External identifier (optional)">
          <input name="external_identifier" value={form.external_identifier} onInput={set('external_identifier')} />
        </Field>
      </div>
      <fieldset>
        <legend>Card that receives the funds</legend>
        <label class="check">
          <input
            type="radio"
            name="destination"
            value="card"
            checked={form.destination === 'card'}
            onChange={() => setForm({ ...form, destination: 'card' })}
          />
          A card number
        </label>
        <label class="check">
          <input
            type="radio"
            name="destination"
            value="id"
            checked={form.destination === 'id'}
            onChange={() => setForm({ ...form, destination: 'id' })}
          />
          A stored card
        </label>
        {form.destination === 'card' ? (
          <div class="filter-grid">
            <Field label="Card number">
              <input
                name="number"
                inputMode="numeric"
                autoComplete="off"
                required
                value={form.number}
                onInput={set('number')}
              />
            </Field>
            <Field label="Expiry (MM/YY)">
              <input
                name="expiration_date"
                required
                maxLength={5}
                value={form.expiration_date}
                onInput={set('expiration_date')}
              />
            </Field>
          </div>
        ) : (
          <Field label="Stored card id">
            <input name="stored_card_id" required value={form.stored_card_id} onInput={set('stored_card_id')} />
          </Field>
        )}
      </fieldset>
      <button type="submit" disabled={action.busy}>
        Create payout
      </button>
    </form>
  );
}

/** One payout: its status, card (masked), service, buyer and merchant as GET /payouts/{id} gives them. */
export function PayoutPage({ params }: PageProps): JSX.Element {
  const id = params.id!;
  const payout = useAsync(() => get<Payout>(`/payouts/${encodeURIComponent(id)}`), id);
  if (payout.error) return <ErrorNotice error={payout.error} />;
  if (!payout.data) return <Loading />;
  const p = payout.data;
  const rows: Array<[string, string]> = [
    ['Status', label(p.status)],
    ['Amount', money(p.amount, p.currency)],
    ['Card', `${card(p)}${p.payment_method.expiration_date ? ` exp. ${p.payment_method.expiration_date}` : ''}`],
    ['Payment service', p.payment_service.display_name ?? p.payment_service.payment_service_definition_id],
    ["Payment service's payout id", p.payment_service_payout_id ?? '—'],
    ['External identifier', p.external_identifier ?? '—'],
    ['Category', label(p.category)],
    ['Buyer', p.buyer ? [p.buyer.display_name, p.buyer.external_identifier].filter(Boolean).join(' · ') || '—' : '—'],
    ['Merchant', p.merchant ? `${p.merchant.name} (${p.merchant.identification_number})` : '—'],
    ['Payout id', p.id],
    ['Created', dateTime(p.created_at)],
    ['Updated', dateTime(p.updated_at)],
  ];
  return (
    <section>
      <p>
        <Link href="/payouts">← Payouts</Link>
      </p>
      <PageHeader title={`Payout ${money(p.amount, p.currency)} · ${label(p.status)}`} />
      <dl class="summary">
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
