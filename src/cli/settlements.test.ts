import { describe, expect, it } from 'vitest';
import { parseSince } from './settlements.ts';

describe('parseSince', () => {
  it('a day is its UTC midnight; a full time is kept; anything else is refused', () => {
    expect(parseSince('2026-11-01').toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseSince('2026-11-01T10:30:00+01:00').toISOString()).toBe('2026-11-01T09:30:00.000Z');
    expect(() => parseSince('yesterday')).toThrow(/--since/);
    expect(() => parseSince('2026-13-45')).toThrow(/--since/);
  });
});
