import type { JSX } from 'preact';
import {
  paramsOf,
  STRATEGIES,
  STRATEGY_TEXT,
  type ParamKey,
  type StrategyDraft,
  type StrategyParam,
} from './routing-strategy.ts';

/**
 * How a route rule chooses its first service, with only the parameters of the chosen strategy,
 * the circuit breaker switch and, for card payments, step-up authentication on retry.
 */
export function StrategyFields({
  draft,
  errors,
  stepUp,
  onChange,
}: {
  draft: StrategyDraft;
  errors: Partial<Record<ParamKey, string>>;
  /** Card payments only: a redirect method has no 3-D Secure to step up to. */
  stepUp: boolean;
  onChange: (draft: StrategyDraft) => void;
}): JSX.Element {
  return (
    <>
      <fieldset>
        <legend>How the first service is chosen</legend>
        {STRATEGIES.map((strategy) => (
          <div class="choice" key={strategy}>
            <label class="check">
              <input
                type="radio"
                name="strategy"
                value={strategy}
                checked={draft.strategy === strategy}
                aria-describedby={`strategy-${strategy}-hint`}
                onChange={() => onChange({ ...draft, strategy })}
              />
              {STRATEGY_TEXT[strategy].title}
            </label>
            <p class="hint" id={`strategy-${strategy}-hint`}>
              {STRATEGY_TEXT[strategy].explanation}
            </p>
          </div>
        ))}
        {paramsOf(draft.strategy).length > 0 ? (
          <div class="filter-grid">
            {paramsOf(draft.strategy).map((param) => (
              <ParamInput
                key={param.key}
                param={param}
                value={draft[param.key]}
                error={errors[param.key]}
                onInput={(value) => onChange({ ...draft, [param.key]: value })}
              />
            ))}
          </div>
        ) : null}
      </fieldset>
      <Switch
        name="breaker"
        draft={draft}
        onChange={onChange}
        label="Skip a service whose circuit breaker is open"
        hint="On (recommended): a service failing many payments in a row is left out for a while, as long as another can take the payment. Off: the rule's services are always tried."
      />
      {stepUp ? (
        <Switch
          name="step_up_on_soft_decline"
          draft={draft}
          onChange={onChange}
          label="Retry with 3-D Secure when the issuer asks for authentication"
          hint="Once per payment, for a card payment that came with a return address: the buyer may be shown a challenge, so your checkout must handle one."
        />
      ) : null}
    </>
  );
}

/** A yes/no outcome field with a sentence on what each answer does. */
function Switch(props: {
  name: 'breaker' | 'step_up_on_soft_decline';
  draft: StrategyDraft;
  onChange: (draft: StrategyDraft) => void;
  label: string;
  hint: string;
}): JSX.Element {
  const hintId = `${props.name}-hint`;
  return (
    <>
      <label class="check">
        <input
          type="checkbox"
          name={props.name}
          checked={props.draft[props.name]}
          aria-describedby={hintId}
          onChange={(e) => props.onChange({ ...props.draft, [props.name]: e.currentTarget.checked })}
        />
        {props.label}
      </label>
      <p class="hint" id={hintId}>
        {props.hint}
      </p>
    </>
  );
}

function ParamInput({
  param,
  value,
  error,
  onInput,
}: {
  param: StrategyParam;
  value: string;
  error: string | undefined;
  onInput: (value: string) => void;
}): JSX.Element {
  const id = `rule-${param.key}`;
  return (
    <div class="field">
      <label class="field-label" for={id}>
        {param.label}
      </label>
      <input
        id={id}
        name={param.key}
        inputMode={param.integer ? 'numeric' : 'decimal'}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error ${id}-hint` : `${id}-hint`}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
      {error ? (
        <span class="field-error" id={`${id}-error`}>
          {error}
        </span>
      ) : null}
      <span class="hint" id={`${id}-hint`}>
        {param.hint}
      </span>
    </div>
  );
}
