import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { get, post, type ListPage } from '../api.ts';
import { useAsync } from '../ui/async.ts';
import { ErrorNotice, Field, useAction } from '../ui/components.tsx';
import { payoutBody, type Payout, type PayoutDraft } from './payout-body.ts';

/** The payout form: amount, service, and the card that receives the funds (a number, never kept in the page once sent, or a stored card). */
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

export function CreatePayout(props: { canListServices: boolean; onCreated: (payout: Payout) => void }): JSX.Element {
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
