import { describe, expect, it } from 'vitest';
import { providerDidMultiFactor, rolesOfClaim } from './sso-roles.ts';

describe('rolesOfClaim', () => {
  it('reads slugs for every account and <account>:<slug> for one', () => {
    expect(rolesOfClaim(['administrator', 'shop-2:customer-support', 'shop-2:pii-viewer'])).toEqual({
      kind: 'roles',
      roles: [
        { merchantAccountId: null, role: 'administrator' },
        { merchantAccountId: 'shop-2', role: 'customer-support' },
        { merchantAccountId: 'shop-2', role: 'pii-viewer' },
      ],
    });
    expect(rolesOfClaim('analyst')).toEqual({ kind: 'roles', roles: [{ merchantAccountId: null, role: 'analyst' }] });
  });

  it('tells an absent claim from a wrong one', () => {
    expect(rolesOfClaim(undefined)).toEqual({ kind: 'absent' });
    expect(rolesOfClaim(null)).toEqual({ kind: 'absent' });
    expect(rolesOfClaim([])).toMatchObject({ kind: 'problem', problem: /lists no role/ });
    expect(rolesOfClaim([1])).toMatchObject({ kind: 'problem', problem: /not a list of strings/ });
    expect(rolesOfClaim(['owner'])).toMatchObject({ kind: 'problem', problem: /Unknown role owner/ });
    expect(rolesOfClaim(['../x:analyst'])).toMatchObject({ kind: 'problem', problem: /no valid merchant account/ });
  });

  it('holds the add-on rule per account, every-account base roles counting in each', () => {
    expect(rolesOfClaim(['shop:pii-viewer'])).toMatchObject({
      kind: 'problem',
      problem: /needs analyst or customer-support/,
    });
    expect(rolesOfClaim(['analyst', 'shop:pii-viewer']).kind).toBe('roles');
    expect(rolesOfClaim(['shop:analyst', 'other:pii-viewer'])).toMatchObject({ kind: 'problem' });
  });
});

describe('providerDidMultiFactor', () => {
  it('takes mfa, or a password with another factor; not a password alone', () => {
    expect(providerDidMultiFactor(['mfa'])).toBe(true);
    expect(providerDidMultiFactor(['pwd', 'otp'])).toBe(true);
    expect(providerDidMultiFactor(['pwd', 'hwk'])).toBe(true);
    expect(providerDidMultiFactor(['pwd'])).toBe(false);
    expect(providerDidMultiFactor(['otp'])).toBe(false);
    expect(providerDidMultiFactor([])).toBe(false);
  });
});
