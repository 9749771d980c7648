import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors/app-error.ts';
import {
  assertTransition,
  assertUsable,
  canTransition,
  NETWORK_TOKEN_STATUSES,
  type NetworkTokenStatus,
} from './network-token-status.ts';

describe('network token status', () => {
  it('allows active ⇄ suspended and deletion from every live state', () => {
    expect(canTransition('active', 'suspended')).toBe(true);
    expect(canTransition('suspended', 'active')).toBe(true);
    for (const from of ['active', 'suspended', 'inactive'] as const) expect(canTransition(from, 'deleted')).toBe(true);
  });

  it('allows exactly these transitions', () => {
    const allowed: string[] = [];
    for (const from of NETWORK_TOKEN_STATUSES)
      for (const to of NETWORK_TOKEN_STATUSES) if (canTransition(from, to)) allowed.push(`${from}→${to}`);
    expect(allowed.sort()).toEqual([
      'active→deleted',
      'active→suspended',
      'inactive→deleted',
      'suspended→active',
      'suspended→deleted',
    ]);
  });

  it('refuses an illegal transition with a 400 naming both states', () => {
    const cases: Array<[NetworkTokenStatus, NetworkTokenStatus]> = [
      ['deleted', 'active'],
      ['active', 'active'],
      ['deleted', 'deleted'],
      ['inactive', 'suspended'],
    ];
    for (const [from, to] of cases) {
      const error = (() => {
        try {
          assertTransition(from, to);
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(400);
      expect((error as AppError).message).toBe(`The network token is ${from}: it cannot become ${to}`);
    }
    expect(() => assertTransition('active', 'suspended')).not.toThrow();
  });

  it('lets only an active token be used', () => {
    expect(() => assertUsable('active')).not.toThrow();
    for (const status of ['suspended', 'inactive', 'deleted'] as const)
      expect(() => assertUsable(status)).toThrow(/is (suspended|inactive|deleted): a cryptogram/);
  });
});
