import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SimulationRequest } from '../connector-simulations.ts';
import { ASYNC_AMOUNTS, collectionEvents, pixEvents } from './mock-async.scenarios.ts';
import { crc16, pixCopyPasteCode } from './mock-pix-code.ts';

const sandboxPage = readFileSync(new URL('../../../docs/sandbox.md', import.meta.url), 'utf8');

const request = (
  method: string,
  amount: number,
  status: SimulationRequest['status'] = 'capture_pending',
): SimulationRequest => ({
  status,
  providerTransactionId: 'mock_gc_1',
  captureId: null,
  amount,
  currency: 'EUR',
  payment: { method, bin: null, last4: null, authorizedAmount: amount },
});
const kinds = (events: ReturnType<typeof collectionEvents>) =>
  events.map((e) => [e.after, e.event.actions[0]!.kind, e.event.actions[0]!.rawResponseCode]);

describe('happy', () => {
  it('lists every asynchronous amount in docs/sandbox.md', () => {
    for (const amount of Object.values(ASYNC_AMOUNTS)) expect(sandboxPage).toContain(`| \`${amount}\` |`);
  });

  it('confirms a collection one delay later, charges 2259 back a delay after that', () => {
    expect(kinds(collectionEvents(request('gocardless', 1000), 'mock_gc'))).toEqual([[1, 'capture_succeeded', null]]);
    expect(kinds(collectionEvents(request('sepa', ASYNC_AMOUNTS.chargedBack), 'mock_sepa'))).toEqual([
      [1, 'capture_succeeded', null],
      [2, 'chargeback_opened', 'MD06'],
    ]);
    expect(kinds(collectionEvents(request('gocardless', ASYNC_AMOUNTS.collectionFails), 'mock_gc'))).toEqual([
      [1, 'capture_failed', 'insufficient_funds'],
    ]);
    // Nothing is collected while the mandate waits for its payer.
    expect(collectionEvents(request('sepa', 1000, 'buyer_approval_pending'), 'mock_sepa')).toEqual([]);
  });

  it('pays a PIX code, expires 2054 and rejects the decline amounts; event ids are stable', () => {
    const pix = (amount: number) => pixEvents(request('pix', amount, 'buyer_approval_pending'), 'mock_pix');
    expect(kinds(pix(1000))).toEqual([[1, 'capture_succeeded', 'PAID']]);
    expect(kinds(pix(ASYNC_AMOUNTS.pixExpires))).toEqual([[1, 'authorization_failed', 'EXPIRED']]);
    expect(kinds(pix(2051))).toEqual([[1, 'authorization_failed', '51']]);
    expect(pix(1000)[0]!.event.eventId).toBe(pix(1000)[0]!.event.eventId);
  });

  it('makes a BR Code with the CRC-16/CCITT-FALSE check value', () => {
    expect(crc16('123456789')).toBe('29B1');
    const code = pixCopyPasteCode('mock_pix_1', 12345);
    expect(code).toContain('5406123.45');
    expect(code.slice(-8, -4)).toBe('6304');
    expect(code.slice(-4)).toBe(crc16(code.slice(0, -4)));
  });
});
