import { describe, expect, it } from 'vitest';
import { parseChange } from './change-feed.ts';

describe('parseChange', () => {
  it('reads schema, table and merchant account id (which may hold colons)', () => {
    expect(parseChange('public:payment_services:m-1')).toEqual({
      schema: 'public',
      table: 'payment_services',
      merchantAccountId: 'm-1',
    });
    expect(parseChange('t_1:webhook_subscriptions:a:b')).toEqual({
      schema: 't_1',
      table: 'webhook_subscriptions',
      merchantAccountId: 'a:b',
    });
  });

  it('refuses what it does not understand', () => {
    expect(parseChange('payment_services')).toBeNull();
    expect(parseChange(':payment_services:m')).toBeNull();
    expect(parseChange('public::m')).toBeNull();
  });
});
