/**
 * The mock card connector's deterministic outcomes. A card is recognised by its first 6 and last 4
 * digits, so a later status query (which carries no card number) finds the same scenario. Amounts
 * listed in AMOUNT_SCENARIOS trigger their outcome with any card. docs/sandbox.md "Transaction outcomes" lists
 * the same table; a test keeps the two in step.
 */
export type MockScenario =
  | { kind: 'approve' }
  | { kind: 'decline'; errorCode: string; rawCode: string; rawDescription: string; cvv?: 'no_match' }
  | { kind: 'fail'; errorCode: string; rawCode: string; rawDescription: string }
  /** The provider authorizes but the answer never arrives: the outcome is unknown until a sync. */
  | { kind: 'timeout' }
  /** The provider cannot be reached: nothing happened there. */
  | { kind: 'unavailable' }
  /** Authorizes; a capture stays pending at the provider until a status query. */
  | { kind: 'capture-pending' }
  /** Authorizes; a void stays pending at the provider until a status query. */
  | { kind: 'void-pending' }
  /** Authorizes; refunds are declined. */
  | { kind: 'refund-decline' }
  /** Authorizes and captures; once settled, the issuer opens a chargeback. */
  | { kind: 'dispute' }
  /** Like `dispute`, and the merchant then wins it: a chargeback reversal follows. */
  | { kind: 'dispute-reversed' }
  /** The issuer demands 3DS: declined unless the authorization carries 3DS data. */
  | { kind: 'three-ds-required' };

export interface MockCardEntry {
  number: string;
  scenario: MockScenario;
  /** The wording of docs/sandbox.md. */
  description: string;
}

export const MOCK_CARDS: readonly MockCardEntry[] = [
  {
    number: '4000000000000002',
    scenario: { kind: 'decline', errorCode: 'do_not_honor', rawCode: '05', rawDescription: 'Do not honor' },
    description: 'Declined: do_not_honor (raw 05)',
  },
  {
    number: '4000000000009995',
    scenario: { kind: 'decline', errorCode: 'insufficient_funds', rawCode: '51', rawDescription: 'Insufficient funds' },
    description: 'Declined: insufficient_funds (raw 51)',
  },
  {
    number: '4000000000000069',
    scenario: { kind: 'decline', errorCode: 'expired_card', rawCode: '54', rawDescription: 'Expired card' },
    description: 'Declined: expired_card (raw 54)',
  },
  {
    number: '4000000000000127',
    scenario: {
      kind: 'decline',
      errorCode: 'incorrect_cvv',
      rawCode: 'N7',
      rawDescription: 'CVV2 mismatch',
      cvv: 'no_match',
    },
    description: 'Declined: incorrect_cvv (raw N7), cvv_response_code no_match',
  },
  {
    number: '4000000000000119',
    scenario: { kind: 'fail', errorCode: 'service_error', rawCode: '96', rawDescription: 'System malfunction' },
    description: 'Failed at the provider: authorization_failed, service_error (raw 96)',
  },
  {
    number: '4000000000000408',
    scenario: { kind: 'timeout' },
    description: 'Network timeout: the transaction stays processing; reconciliation (or sync) finds it authorized',
  },
  {
    number: '4000000000000994',
    scenario: { kind: 'unavailable' },
    description: 'Provider unreachable: authorization_failed, service_network_error',
  },
  {
    number: '4000000000000077',
    scenario: { kind: 'capture-pending' },
    description: 'Capture pending: capture_pending until the capture is confirmed by a status query (job or sync)',
  },
  {
    number: '4000000000000317',
    scenario: { kind: 'void-pending' },
    description: 'Void pending: authorization_void_pending until confirmed by a status query',
  },
  {
    number: '4000000000000341',
    scenario: { kind: 'refund-decline' },
    description: 'Approved; every refund is declined (refund_declined, raw 12)',
  },
  {
    number: '4000000000000259',
    scenario: { kind: 'dispute' },
    description:
      'Approved; after settlement the issuer opens a chargeback (disputed: true; `GET /transactions/{id}/chargebacks` lists it)',
  },
  {
    number: '4000000000000630',
    scenario: { kind: 'dispute-reversed' },
    description:
      'Approved; after settlement a chargeback is opened and then reversed (disputed stays true; both are events, and both are listed: `.../chargebacks`, `.../chargeback-reversals`)',
  },
  {
    number: '4000000000003220',
    scenario: { kind: 'three-ds-required' },
    description:
      '3DS required: with three_d_secure_enabled on the payment service, the sandbox 3DS server challenges it (buyer_approval_pending until the buyer completes the challenge page at payment_method.approval_url) and it is then authorized with three_d_secure.method challenge; without 3DS, declined authentication_required (raw 1A), which a route-transaction rule with step_up_on_soft_decline retries once with 3DS (docs/routing.md)',
  },
];

/** Amounts (minor units) that force an outcome with any card, stored card or network token. */
export const AMOUNT_SCENARIOS: ReadonlyMap<number, { scenario: MockScenario; description: string }> = new Map([
  [
    2005,
    {
      scenario: { kind: 'decline', errorCode: 'do_not_honor', rawCode: '05', rawDescription: 'Do not honor' },
      description: 'Declined: do_not_honor (raw 05)',
    },
  ],
  [
    2051,
    {
      scenario: {
        kind: 'decline',
        errorCode: 'insufficient_funds',
        rawCode: '51',
        rawDescription: 'Insufficient funds',
      },
      description: 'Declined: insufficient_funds (raw 51)',
    },
  ],
  [
    2096,
    {
      scenario: { kind: 'fail', errorCode: 'service_error', rawCode: '96', rawDescription: 'System malfunction' },
      description: 'Failed: service_error (raw 96)',
    },
  ],
  [2408, { scenario: { kind: 'timeout' }, description: 'Network timeout (outcome unknown until reconciliation)' }],
  [2077, { scenario: { kind: 'capture-pending' }, description: 'Capture pending until a status query' }],
]);

const byHint = new Map(
  MOCK_CARDS.map((card) => [`${card.number.slice(0, 6)}:${card.number.slice(-4)}`, card.scenario]),
);

/** The scenario of a payment: the amount's, else the card's (by first 6 and last 4), else approve. */
export function scenarioOf(amount: number, hint: { bin: string | null; last4: string | null }): MockScenario {
  const byAmount = AMOUNT_SCENARIOS.get(amount);
  if (byAmount) return byAmount.scenario;
  if (hint.bin && hint.last4) return byHint.get(`${hint.bin.slice(0, 6)}:${hint.last4}`) ?? { kind: 'approve' };
  return { kind: 'approve' };
}

/**
 * Increases of an authorization (`POST /transactions/{id}/authorization/increment`) decided by
 * the increase's own amount; any other increase is approved. docs/sandbox.md "Incremental authorization"
 * lists the same table (a test keeps them in step).
 */
export const INCREMENT_AMOUNT_SCENARIOS: ReadonlyMap<number, { scenario: MockScenario; description: string }> = new Map(
  [
    [
      4005,
      {
        scenario: { kind: 'decline', errorCode: 'do_not_honor', rawCode: '05', rawDescription: 'Do not honor' },
        description: 'Declined: do_not_honor (raw 05); the authorization stays as it was',
      },
    ],
    [
      4051,
      {
        scenario: {
          kind: 'decline',
          errorCode: 'insufficient_funds',
          rawCode: '51',
          rawDescription: 'Insufficient funds',
        },
        description: 'Declined: insufficient_funds (raw 51)',
      },
    ],
    [
      4096,
      {
        scenario: { kind: 'fail', errorCode: 'service_error', rawCode: '96', rawDescription: 'System malfunction' },
        description: 'Failed: service_error (raw 96)',
      },
    ],
    [
      4408,
      {
        scenario: { kind: 'timeout' },
        description:
          'Network timeout: the increase is approved at the provider but the answer is lost; reconciliation (or sync) applies it',
      },
    ],
    [
      4094,
      {
        scenario: { kind: 'unavailable' },
        description: 'Provider unreachable: failed, service_network_error; nothing changed',
      },
    ],
  ],
);

export function incrementScenarioOf(amount: number): MockScenario {
  return INCREMENT_AMOUNT_SCENARIOS.get(amount)?.scenario ?? { kind: 'approve' };
}
