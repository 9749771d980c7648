import { describe, expect, it } from 'vitest';
import { errorMessage, withQuery } from '../../console/src/api.ts';
import { describeOutcome, dropped, moved, ruleVerdict, toCondition } from '../../console/src/pages/routing-rules.ts';
import { assignable, mayGiveEverywhere, type Role, withoutOrphanAddOns } from '../../console/src/pages/users-rules.ts';
import type { DashboardUser } from '../../console/src/session.ts';
import { ROLE_SLUGS } from '../../src/modules/roles/roles.catalogue.ts';
import { toRoleResource } from '../../src/modules/roles/roles.schemas.ts';
import { currencyDigits, money, toMinor } from '../../console/src/ui/format.ts';

/** The dashboard console's pure logic (console/src), run by the server's test suite. */

describe('happy', () => {
  it("turns typed amounts into minor units by the currency's digits, and back", () => {
    expect([currencyDigits('EUR'), currencyDigits('JPY'), currencyDigits('KWD')]).toEqual([2, 0, 3]);
    expect(toMinor('12.50', 'EUR')).toBe(1250);
    expect(toMinor('12.5', 'EUR')).toBe(1250);
    expect(toMinor('12', 'EUR')).toBe(1200);
    expect(toMinor('500', 'JPY')).toBe(500);
    expect(toMinor('1.005', 'KWD')).toBe(1005);
    expect(money(1250, 'EUR')).toBe('€12.50');
    expect(money(500, 'JPY')).toBe('¥500');
  });

  it('builds query strings without empty values, with repeated keys for lists', () => {
    expect(
      withQuery('/transactions', {
        search: 'order-1',
        status: ['capture_succeeded', 'authorization_succeeded'],
        currency: '',
        cursor: null,
        limit: 20,
      }),
    ).toBe('/transactions?search=order-1&status=capture_succeeded&status=authorization_succeeded&limit=20');
    expect(withQuery('/buyers', { search: '' })).toBe('/buyers');
  });

  it('moves a rule up or down, and leaves the order alone at either end', () => {
    expect(moved(['a', 'b', 'c'], 'c', -1)).toEqual(['a', 'c', 'b']);
    expect(moved(['a', 'b', 'c'], 'a', 1)).toEqual(['b', 'a', 'c']);
    expect(moved(['a', 'b', 'c'], 'a', -1)).toEqual(['a', 'b', 'c']);
    expect(moved(['a', 'b', 'c'], 'c', 1)).toEqual(['a', 'b', 'c']);
  });

  it('puts a dragged rule in the place of the rule it is dropped on, up or down', () => {
    expect(dropped(['a', 'b', 'c'], 'c', 'a')).toEqual(['c', 'a', 'b']);
    expect(dropped(['a', 'b', 'c'], 'a', 'c')).toEqual(['b', 'c', 'a']);
    expect(dropped(['a', 'b', 'c'], 'a', 'b')).toEqual(['b', 'a', 'c']);
    expect(dropped(['a', 'b', 'c'], 'b', 'b')).toEqual(['a', 'b', 'c']);
    expect(dropped(['a', 'b', 'c'], 'x', 'a')).toEqual(['a', 'b', 'c']);
  });

  it("says why the dry run's rules do not match", () => {
    expect(ruleVerdict({ matched: true, not_matched_because: null, failed_conditions: [] })).toBe('matches');
    expect(ruleVerdict({ matched: false, not_matched_because: 'earlier_rule_matched', failed_conditions: [] })).toBe(
      'does not match (earlier rule matched)',
    );
    expect(
      ruleVerdict({
        matched: false,
        not_matched_because: 'conditions',
        failed_conditions: [{ reason: 'currency EUR is not USD' }, { reason: 'country DE is not one of FR' }],
      }),
    ).toBe('does not match (conditions: currency EUR is not USD; country DE is not one of FR)');
  });

  it("writes the condition builder's drafts as the API's conditions", () => {
    expect(toCondition({ field: 'currency', operator: 'one_of', value: 'eur, usd,' })).toEqual({
      field: 'currency',
      operator: 'one_of',
      value: ['EUR', 'USD'],
    });
    expect(toCondition({ field: 'card_scheme', operator: 'equals', value: ' Visa ' })).toEqual({
      field: 'card_scheme',
      operator: 'equals',
      value: 'visa',
    });
    expect(toCondition({ field: 'buyer_external_identifier', operator: 'prefix', value: 'VIP-' })).toEqual({
      field: 'buyer_external_identifier',
      operator: 'prefix',
      value: 'VIP-',
    });
    expect(toCondition({ field: 'merchant_initiated', operator: 'equals', value: 'false' })).toEqual({
      field: 'merchant_initiated',
      operator: 'equals',
      value: false,
    });
  });
});

describe('what a rule does, in words', () => {
  const names = new Map([
    ['a', 'Adyen EU'],
    ['b', 'Stripe'],
  ]);
  it('names the services in order, their split and limits; the other actions in their words', () => {
    expect(describeOutcome('route-transaction', { payment_service_ids: ['a', 'b'], max_attempts: 2 }, names)).toBe(
      'Route to Adyen EU, then Stripe; at most 2 attempts',
    );
    expect(describeOutcome('route-transaction', { payment_service_ids: ['a', 'b'], weights: [70, 30] }, names)).toBe(
      'Split between Adyen EU (70 %), Stripe (30 %)',
    );
    expect(describeOutcome('route-transaction', { payment_service_ids: ['0190abcd-ffff'] }, names)).toBe(
      'Route to service 0190abcd…',
    );
    expect(describeOutcome('decline-early', { reason: 'fraud suspected' }, names)).toBe(
      'Decline early: fraud suspected',
    );
    expect(describeOutcome('skip-3ds', {}, names)).toBe('Skip 3-D Secure');
    expect(describeOutcome('select-payment-options', { payment_options: ['card', 'paypal'] }, names)).toBe(
      'Offer card, paypal',
    );
  });

  it('shows a field it does not know as it is', () => {
    expect(describeOutcome('route-transaction', { payment_service_ids: ['a'], extra: 1 }, names)).toBe(
      'Route to Adyen EU; extra: 1',
    );
  });
});

describe('users and roles', () => {
  const roles: Role[] = ROLE_SLUGS.map(toRoleResource);
  const idOf = (slug: string) => roles.find((r) => r.slug === slug)!.id;
  const person = (memberships: Array<[string | null, string[]]>): DashboardUser => ({
    id: 'u',
    email: 'u@example.com',
    display_name: 'u',
    status: 'active',
    totp_enrolled: false,
    second_factor_required: false,
    memberships: memberships.map(([merchant_account_id, slugs]) => ({
      merchant_account_id,
      roles: slugs,
      scopes: roles.filter((r) => slugs.includes(r.slug)).flatMap((r) => r.permissions.allow),
    })),
  });
  const scopesOf = (user: DashboardUser) => new Set(user.memberships.flatMap((m) => m.scopes));

  it('offers the roles the server lets the user give: its scopes, or any but administrator for a user manager', () => {
    const manager = person([['a', ['user-manager']]]);
    const offered = (user: DashboardUser) =>
      roles.filter((r) => assignable(r, scopesOf(user), user, 'a')).map((r) => r.slug);
    expect(offered(manager)).toEqual(ROLE_SLUGS.filter((slug) => slug !== 'administrator'));
    // An analyst reads blocklist entries, which customer support does not: customer support can
    // give its own role only.
    expect(offered(person([['a', ['customer-support']]]))).toEqual(['customer-support']);
    expect(offered(person([['a', ['analyst']]]))).toContain('analyst');
    expect(offered(person([[null, ['administrator']]]))).toEqual([...ROLE_SLUGS]);
  });

  it('offers every account only to an administrator of every account, and drops add-ons without their base', () => {
    expect(mayGiveEverywhere(person([[null, ['administrator']]]), 'a')).toBe(true);
    expect(
      mayGiveEverywhere(
        person([
          [null, ['administrator']],
          ['a', ['analyst']],
        ]),
        'a',
      ),
    ).toBe(false);
    expect(mayGiveEverywhere(person([['a', ['administrator']]]), 'a')).toBe(false);
    const chosen = new Set([idOf('system-manager'), idOf('pii-viewer')]);
    expect([...withoutOrphanAddOns(chosen, roles)]).toEqual([idOf('system-manager')]);
    const based = new Set([idOf('analyst'), idOf('pii-viewer')]);
    expect(withoutOrphanAddOns(based, roles)).toBe(based);
  });
});

describe('errors', () => {
  it('refuses amounts that are not amounts', () => {
    for (const text of ['', 'abc', '-5', '1.234', '1e3x']) expect(toMinor(text, 'EUR'), text).toBeNull();
    expect(toMinor('1.5', 'JPY')).toBeNull();
  });

  it("shows the spec's error message, and each field of a 422", () => {
    expect(
      errorMessage(409, { type: 'error', code: 'duplicate_record', message: 'A key with this name exists' }),
    ).toEqual({ code: 'duplicate_record', message: 'A key with this name exists' });
    expect(
      errorMessage(422, {
        detail: [
          { loc: ['body', 'amount'], msg: 'must be >= 1', type: 'value_error' },
          { loc: ['body', 'currency'], msg: 'required' },
        ],
      }),
    ).toEqual({ code: 'validation_error', message: 'amount: must be >= 1; currency: required' });
    expect(errorMessage(502, '<html>Bad gateway</html>')).toEqual({
      code: 'http_error',
      message: 'The server answered 502',
    });
  });
});
