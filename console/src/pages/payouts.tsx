import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { get } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { Link } from '../router.tsx';
import { hasScope } from '../session.ts';
import { useAsync, useCursorList } from '../ui/async.ts';
import { ErrorNotice, Field, ListTable, Loading, PageHeader, Status, Success } from '../ui/components.tsx';
import { dateTime, label, money } from '../ui/format.ts';
import type { Payout } from './payout-body.ts';
import { CreatePayout } from './payout-form.tsx';

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
