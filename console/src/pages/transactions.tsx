import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { PageProps } from '../pages.tsx';
import { Link } from '../router.tsx';
import { useCursorList } from '../ui/async.ts';
import { Field, ListTable, PageHeader, Status, type Column } from '../ui/components.tsx';
import { dateTime, money } from '../ui/format.ts';
import { TRANSACTION_STATUSES, type TransactionSummary } from './types.ts';

type Filters = Record<string, string>;

const EMPTY: Filters = {
  search: '',
  status: '',
  currency: '',
  method: '',
  created_at_gte: '',
  created_at_lte: '',
  amount_gte: '',
  amount_lte: '',
  has_refunds: '',
  disputed: '',
  buyer_search: '',
  payment_method_label: '',
};

/** A date input (local midnight) as the API's date-time with offset. */
const isoDate = (value: string, endOfDay: boolean) =>
  value ? new Date(`${value}T${endOfDay ? '23:59:59' : '00:00:00'}`).toISOString() : '';

function toQuery(f: Filters): Record<string, string> {
  return {
    ...f,
    created_at_gte: isoDate(f.created_at_gte ?? '', false),
    created_at_lte: isoDate(f.created_at_lte ?? '', true),
    currency: (f.currency ?? '').toUpperCase(),
  };
}

const COLUMNS: Column<TransactionSummary>[] = [
  { title: 'Created', cell: (t) => <Link href={`/transactions/${t.id}`}>{dateTime(t.created_at)}</Link> },
  { title: 'Amount', class: 'num', cell: (t) => money(t.amount, t.currency) },
  { title: 'Status', cell: (t) => <Status value={t.status} /> },
  { title: 'External identifier', cell: (t) => t.external_identifier ?? '—' },
  {
    title: 'Method',
    cell: (t) =>
      [t.payment_method?.scheme ?? t.method, t.payment_method?.label ? `•••• ${t.payment_method.label}` : null]
        .filter(Boolean)
        .join(' ') || '—',
  },
  { title: 'Payment service', cell: (t) => t.payment_service?.display_name ?? '—' },
  { title: 'Buyer', cell: (t) => t.buyer?.display_name ?? t.buyer?.external_identifier ?? '—' },
];

export function TransactionsPage(_props: PageProps): JSX.Element {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const list = useCursorList<TransactionSummary>('/transactions', toQuery(applied));
  const set = (key: string) => (e: Event) => setDraft({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value });
  const submit = (e: Event) => {
    e.preventDefault();
    setApplied(draft);
  };
  return (
    <section>
      <PageHeader title="Transactions" />
      <form class="filters" onSubmit={submit} aria-label="Filter transactions">
        <Field label="Search" hint="Id, external identifier, reconciliation id, provider reference, buyer e-mail">
          <input type="search" name="search" value={draft.search} onInput={set('search')} />
        </Field>
        <Field label="Status">
          <select name="status" value={draft.status} onChange={set('status')}>
            <option value="">Any</option>
            {TRANSACTION_STATUSES.map((s) => (
              <option value={s}>{s.replace(/_/g, ' ')}</option>
            ))}
          </select>
        </Field>
        <Field label="Currency">
          <input name="currency" maxLength={3} size={4} value={draft.currency} onInput={set('currency')} />
        </Field>
        <details class="more-filters">
          <summary>More filters</summary>
          <div class="filter-grid">
            <Field label="Created from">
              <input type="date" name="created_at_gte" value={draft.created_at_gte} onInput={set('created_at_gte')} />
            </Field>
            <Field label="Created until">
              <input type="date" name="created_at_lte" value={draft.created_at_lte} onInput={set('created_at_lte')} />
            </Field>
            <Field label="Amount at least (minor units)">
              <input type="number" min={0} name="amount_gte" value={draft.amount_gte} onInput={set('amount_gte')} />
            </Field>
            <Field label="Amount at most (minor units)">
              <input type="number" min={0} name="amount_lte" value={draft.amount_lte} onInput={set('amount_lte')} />
            </Field>
            <Field label="Method">
              <input name="method" placeholder="card" value={draft.method} onInput={set('method')} />
            </Field>
            <Field label="Card last 4 digits">
              <input
                name="payment_method_label"
                value={draft.payment_method_label}
                onInput={set('payment_method_label')}
              />
            </Field>
            <Field label="Buyer (name, identifier or e-mail)">
              <input name="buyer_search" value={draft.buyer_search} onInput={set('buyer_search')} />
            </Field>
            <Field label="Refunded">
              <select name="has_refunds" value={draft.has_refunds} onChange={set('has_refunds')}>
                <option value="">Any</option>
                <option value="true">With refunds</option>
                <option value="false">Without refunds</option>
              </select>
            </Field>
            <Field label="Disputed">
              <select name="disputed" value={draft.disputed} onChange={set('disputed')}>
                <option value="">Any</option>
                <option value="true">Disputed</option>
                <option value="false">Not disputed</option>
              </select>
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
        columns={COLUMNS}
        caption="Transactions"
        empty="No transaction matches these filters."
        rowKey={(t) => t.id}
      />
    </section>
  );
}
