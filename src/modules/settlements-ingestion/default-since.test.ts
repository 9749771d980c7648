import { describe, expect, it } from 'vitest';
import { defaultSince } from './settlement-ingestion.service.ts';

describe('defaultSince', () => {
  it('is the start of the UTC day the payment service was created, so a line dated in whole seconds of that day is not dropped', () => {
    expect(defaultSince(new Date('2026-12-06T10:00:04.341Z')).toISOString()).toBe('2026-12-06T00:00:00.000Z');
    expect(defaultSince(new Date('2026-12-06T00:00:00.000Z')).toISOString()).toBe('2026-12-06T00:00:00.000Z');
    expect(defaultSince(new Date('2026-12-31T23:59:59.999Z')).toISOString()).toBe('2026-12-31T00:00:00.000Z');
  });
});
