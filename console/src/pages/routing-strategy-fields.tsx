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
      <label class="check">
        <input
          type="checkbox"
          name="breaker"
          checked={draft.breaker}
          aria-describedby="breaker-hint"
          onChange={(e) => onChange({ ...draft, breaker: e.currentTarget.checked })}
        />
        Skip a service whose circuit breaker is open
      </label>
      <p class="hint" id="breaker-hint">
        On (recommended): a service failing many payments in a row is left out for a while, as long as another can take
        the payment. Off: the rule's services are always tried.
      </p>
      {stepUp ? (
        <>
          <label class="check">
            <input
              type="checkbox"
              name="step_up_on_soft_decline"
              checked={draft.step_up_on_soft_decline}
              aria-describedby="step-up-hint"
              onChange={(e) => onChange({ ...draft, step_up_on_soft_decline: e.currentTarget.checked })}
            />
            Retry with 3-D Secure when the issuer asks for authentication
          </label>
          <p class="hint" id="step-up-hint">
            Once per payment, for a card payment that came with a return address: the buyer may be shown a challenge, so
            your checkout must handle one.
          </p>
        </>
      ) : null}
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
