import type { JSX } from 'preact';
import { Field } from '../ui/components.tsx';
import { CARD_TYPES, type FeeDraft } from './fee-schedule.ts';

/** One entry of the fee schedule form: what it matches (empty: any) and its fee. */
export function FeeEntryFields({
  n,
  draft,
  error,
  schemes,
  onChange,
  onRemove,
}: {
  n: number;
  draft: FeeDraft;
  error: string | null;
  schemes: ReadonlyArray<{ id: string; display_name: string }>;
  onChange: (draft: FeeDraft) => void;
  onRemove: () => void;
}): JSX.Element {
  const set = (key: keyof FeeDraft) => (e: Event) =>
    onChange({ ...draft, [key]: (e.currentTarget as HTMLInputElement | HTMLSelectElement).value });
  const errorId = `fee-entry-${n}-error`;
  return (
    <fieldset aria-describedby={error ? errorId : undefined}>
      <legend>Entry {n}</legend>
      {error ? (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      ) : null}
      <div class="filter-grid">
        <Field label={`Entry ${n}: card scheme`}>
          <select name={`scheme-${n}`} value={draft.scheme} onChange={set('scheme')}>
            <option value="">Any scheme</option>
            {/* A stored scheme the catalogue lacks is kept selectable. */}
            {draft.scheme && !schemes.some((s) => s.id === draft.scheme) ? (
              <option value={draft.scheme}>{draft.scheme}</option>
            ) : null}
            {schemes.map((s) => (
              <option value={s.id} key={s.id}>
                {s.display_name}
              </option>
            ))}
          </select>
        </Field>
        <Field label={`Entry ${n}: card type`}>
          <select name={`card_type-${n}`} value={draft.card_type} onChange={set('card_type')}>
            <option value="">Any card type</option>
            {CARD_TYPES.map((t) => (
              <option value={t} key={t}>
                {t}
              </option>
            ))}
          </select>
        </Field>
        <Field label={`Entry ${n}: currency`} hint="Empty: any">
          <input
            name={`currency-${n}`}
            maxLength={3}
            autocomplete="off"
            value={draft.currency}
            onInput={set('currency')}
          />
        </Field>
        <Field label={`Entry ${n}: country`} hint="Empty: any">
          <input
            name={`country-${n}`}
            maxLength={2}
            autocomplete="off"
            value={draft.country}
            onInput={set('country')}
          />
        </Field>
        <Field label={`Entry ${n}: percentage of the amount`} hint="Such as 2.9">
          <input name={`percent-${n}`} inputMode="decimal" required value={draft.percent} onInput={set('percent')} />
        </Field>
        <Field label={`Entry ${n}: fixed fee`} hint="Such as 0.25; empty: none">
          <input
            name={`fixed_amount-${n}`}
            inputMode="decimal"
            value={draft.fixed_amount}
            onInput={set('fixed_amount')}
          />
        </Field>
        {draft.currency.trim() === '' ? (
          <Field label={`Entry ${n}: the fixed fee's currency`} hint="The fee counts for payments in it only">
            <input
              name={`fixed_currency-${n}`}
              maxLength={3}
              autocomplete="off"
              value={draft.fixed_currency}
              onInput={set('fixed_currency')}
            />
          </Field>
        ) : null}
      </div>
      <button type="button" class="secondary" onClick={onRemove}>
        Remove entry {n}
      </button>
    </fieldset>
  );
}
