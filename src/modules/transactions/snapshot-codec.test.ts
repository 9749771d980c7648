import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeActions,
  decodePaymentMethod,
  decodePaymentService,
  decodeTransactionRow,
  encodeActions,
  encodePaymentMethod,
  encodePaymentService,
  encodeTransactionWrite,
  inJsonbOrder,
  type SnapshotColumns,
} from './snapshot-codec.ts';

/** What the database hands back for a JSON value stored as jsonb: every object's keys in jsonb's order. */
function asStored(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asStored);
  if (typeof value === 'object' && value !== null) {
    const ordered = inJsonbOrder(value as Record<string, unknown>);
    for (const key of Object.keys(ordered)) ordered[key] = asStored(ordered[key]);
    return ordered;
  }
  return value;
}

/** Stored and read back: the exact bytes a reader renders. */
const readBack = (value: unknown) => JSON.stringify(asStored(JSON.parse(JSON.stringify(value))));

const uuid = fc.uuid();
const fingerprint = fc.string({ minLength: 43, maxLength: 43 });
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
/** A snapshot key's value relative to its column: absent, null, the column's value, or another. */
type Relation = 'absent' | 'null' | 'equal' | 'other';
const relation = fc.constantFrom<Relation>('absent', 'null', 'equal', 'other');

function withRelation(
  snapshot: Record<string, unknown>,
  key: string,
  how: Relation,
  column: string | null,
  other: string,
): void {
  if (how === 'null') snapshot[key] = null;
  if (how === 'equal') snapshot[key] = column;
  if (how === 'other') snapshot[key] = other;
}

const extraKeys = fc.dictionary(
  fc.constantFrom(
    'bin',
    'mode',
    'label',
    'scheme',
    'expiration_date',
    'card_type',
    'country',
    'currency',
    'external_identifier',
    'last_replaced_at',
    'é',
  ),
  fc.oneof(fc.string(), fc.constant(null), fc.integer()),
);

const methods = fc.constantFrom('card', 'network-token', 'applepay', 'googlepay', 'click-to-pay', 'paze', 'paypal');

const paymentMethodCase = fc.record({
  method: methods,
  columnMethod: methods,
  id: maybe(uuid),
  fingerprint: maybe(fingerprint),
  idHow: relation,
  fingerprintHow: relation,
  otherId: uuid,
  otherFingerprint: fingerprint,
  extra: extraKeys,
});

const paymentServiceCase = fc.record({
  method: methods,
  columnMethod: methods,
  id: maybe(uuid),
  idHow: relation,
  methodHow: relation,
  otherId: uuid,
  display: fc.string(),
  definition: fc.string(),
});

describe('snapshot codec: payment_method', () => {
  it('decode(encode(x)) reads back exactly as x, for every shape, and a whole snapshot reads as it is', () => {
    fc.assert(
      fc.property(paymentMethodCase, (c) => {
        const columns: SnapshotColumns = {
          method: c.columnMethod,
          payment_method_id: c.id,
          card_fingerprint: c.fingerprint,
        };
        const snapshot: Record<string, unknown> = { ...c.extra, method: c.method };
        withRelation(snapshot, 'id', c.idHow, c.id, c.otherId);
        withRelation(snapshot, 'fingerprint', c.fingerprintHow, c.fingerprint, c.otherFingerprint);
        const stored = asStored(JSON.parse(JSON.stringify(encodePaymentMethod(snapshot, columns))));
        expect(JSON.stringify(decodePaymentMethod(stored, columns))).toBe(readBack(snapshot));
        // An old row: the whole snapshot.
        const old = asStored(JSON.parse(JSON.stringify(snapshot)));
        expect(JSON.stringify(decodePaymentMethod(old, columns))).toBe(readBack(snapshot));
      }),
      { numRuns: 2000 },
    );
  });

  it("drops the stored card's id, fingerprint and method (the benchmark's row)", () => {
    const columns = { method: 'card', payment_method_id: 'pm-1', card_fingerprint: 'fp-1' };
    const snapshot = {
      id: 'pm-1',
      bin: '41111111',
      mode: 'card',
      label: '1111',
      method: 'card',
      scheme: 'visa',
      fingerprint: 'fp-1',
      expiration_date: '12/40',
    };
    const encoded = encodePaymentMethod(snapshot, columns);
    expect(encoded).toEqual({ bin: '41111111', mode: 'card', label: '1111', scheme: 'visa', expiration_date: '12/40' });
    expect(JSON.stringify(decodePaymentMethod(encoded, columns))).toBe(JSON.stringify(snapshot));
  });

  it('keeps the snapshot whole when a key it lacks would be rebuilt from its column', () => {
    const columns = { method: 'card', payment_method_id: 'pm-1', card_fingerprint: null };
    const snapshot = { method: 'card', label: '1111' };
    expect(encodePaymentMethod(snapshot, columns)).toBe(snapshot);
  });

  it('keeps the snapshot whole when a column it would be rebuilt from is not known', () => {
    const snapshot = { method: 'card', id: 'pm-1', label: '1111' };
    expect(encodePaymentMethod(snapshot, { method: 'card', payment_method_id: 'pm-1' })).toBe(snapshot);
  });

  it('refuses to rebuild an encoded snapshot without its columns', () => {
    expect(() => decodePaymentMethod({ label: '1111' }, { payment_method_id: null, card_fingerprint: null })).toThrow(
      /needs the column method/,
    );
  });
});

describe('snapshot codec: payment_service', () => {
  it('decode(encode(x)) reads back exactly as x, for every shape, and a whole snapshot reads as it is', () => {
    fc.assert(
      fc.property(paymentServiceCase, (c) => {
        const columns: SnapshotColumns = { method: c.columnMethod, payment_service_id: c.id };
        const snapshot: Record<string, unknown> = {
          type: 'payment-service',
          payment_service_definition_id: c.definition,
          display_name: c.display,
        };
        withRelation(snapshot, 'id', c.idHow, c.id, c.otherId);
        withRelation(snapshot, 'method', c.methodHow, c.columnMethod, c.method);
        const stored = asStored(JSON.parse(JSON.stringify(encodePaymentService(snapshot, columns))));
        expect(JSON.stringify(decodePaymentService(stored, columns))).toBe(readBack(snapshot));
        const old = asStored(JSON.parse(JSON.stringify(snapshot)));
        expect(JSON.stringify(decodePaymentService(old, columns))).toBe(readBack(snapshot));
      }),
      { numRuns: 2000 },
    );
  });

  it("drops type, id and method of the routed service's snapshot", () => {
    const columns = { method: 'card', payment_service_id: 'ps-1' };
    const snapshot = {
      type: 'payment-service',
      id: 'ps-1',
      payment_service_definition_id: 'mock-card',
      method: 'card',
      display_name: 'Bench cards',
    };
    const encoded = encodePaymentService(snapshot, columns);
    expect(encoded).toEqual({ payment_service_definition_id: 'mock-card', display_name: 'Bench cards' });
    expect(JSON.stringify(decodePaymentService(asStored(encoded), columns))).toBe(readBack(snapshot));
  });
});

describe('encodeTransactionWrite / decodeTransactionRow', () => {
  const insert = {
    id: 't-1',
    method: 'card',
    payment_method_id: 'pm-1',
    card_fingerprint: 'fp-1',
    payment_method: JSON.stringify({ method: 'card', id: 'pm-1', fingerprint: 'fp-1', label: '1111' }),
    payment_service_id: 'ps-1',
    payment_service: JSON.stringify({ type: 'payment-service', id: 'ps-1', method: 'card', display_name: 'A' }),
  };

  it('encodes the JSON text of an insert and the row read back decodes to the whole snapshots', () => {
    const written = encodeTransactionWrite(insert, 'insert');
    expect(JSON.parse(written.payment_method)).toEqual({ label: '1111' });
    expect(JSON.parse(written.payment_service)).toEqual({ display_name: 'A' });
    const row = {
      ...written,
      payment_method: asStored(JSON.parse(written.payment_method)),
      payment_service: asStored(JSON.parse(written.payment_service)),
    };
    decodeTransactionRow(row);
    expect(JSON.stringify(row.payment_method)).toBe(readBack(JSON.parse(insert.payment_method)));
    expect(JSON.stringify(row.payment_service)).toBe(readBack(JSON.parse(insert.payment_service)));
  });

  it('leaves a patch whole when it does not set every column a snapshot is rebuilt from', () => {
    const patch = {
      payment_method_id: 'pm-2',
      payment_method: JSON.stringify({ method: 'card', id: 'pm-2', label: '1111' }),
    };
    expect(encodeTransactionWrite(patch)).toBe(patch);
  });

  it('refuses a write that moves a column a stored snapshot is rebuilt from without that snapshot', () => {
    expect(() => encodeTransactionWrite({ payment_method_id: 'pm-2' })).toThrow(/must write payment_method too/);
    expect(() => encodeTransactionWrite({ payment_service_id: 'ps-2' })).toThrow(/must write payment_service too/);
    expect(() => encodeTransactionWrite({ method: 'card', payment_method: null })).toThrow(
      /must write payment_service too/,
    );
    expect(encodeTransactionWrite({ status: 'authorization_succeeded' })).toEqual({
      status: 'authorization_succeeded',
    });
  });
});

describe('snapshot codec: actions', () => {
  const route = (outcome: Record<string, unknown>, ruleId = 'first-eligible-by-position') => ({
    id: 'route-transaction',
    flow: 'card-transaction',
    outcome,
    rule_id: ruleId,
    created_at: '2026-12-07T12:13:22.168Z',
  });
  const decision = {
    rule: 'first-eligible-by-position',
    skipped: [],
    eligible: ['ps-1', 'ps-2'],
    selected: 'ps-1',
  };

  it("drops a routing decision's rule (= rule_id) and selected (= payment_service_id), and reads them back", () => {
    const actions = [route(decision), { id: 'skip-3ds', flow: 'card-transaction', rule_id: 'r', outcome: {} }];
    const columns = { payment_service_id: 'ps-1' };
    const encoded = encodeActions(actions, columns) as Array<Record<string, unknown>>;
    expect(encoded[0]!.outcome).toEqual({ skipped: [], eligible: ['ps-1', 'ps-2'] });
    expect(encoded[1]).toBe(actions[1]);
    expect(JSON.stringify(decodeActions(asStored(encoded), columns))).toBe(readBack(actions));
  });

  it('keeps selected when the column is not known, or names another service (a failover moved it)', () => {
    const unknown = encodeActions([route(decision)], {}) as Array<Record<string, unknown>>;
    expect(unknown[0]!.outcome).toEqual({ skipped: [], eligible: ['ps-1', 'ps-2'], selected: 'ps-1' });
    const moved = encodeActions([route(decision)], { payment_service_id: 'ps-2' }) as Array<Record<string, unknown>>;
    expect(JSON.stringify(decodeActions(asStored(moved), { payment_service_id: 'ps-2' }))).toBe(
      readBack([route(decision)]),
    );
  });

  it('leaves other outcomes of route-transaction (a failover step, a stop) and a flow rule whole', () => {
    const others = [
      route({ failover: { from: 'ps-1', to: 'ps-2' } }),
      route({ stopped: { reason: 'x' } }),
      route({ ...decision, rule: 'flow-rule' }, 'rule-uuid'),
    ];
    const encoded = encodeActions(others, { payment_service_id: 'ps-9' }) as unknown[];
    expect(encoded.slice(0, 2)).toEqual(others.slice(0, 2));
    expect(JSON.stringify(decodeActions(asStored(encoded), { payment_service_id: 'ps-9' }))).toBe(readBack(others));
  });

  it('decode(encode(x)) reads back exactly as x for any routing decision, and whole actions read as they are', () => {
    fc.assert(
      fc.property(
        fc.record({
          rule: fc.constantFrom('first-eligible-by-position', 'forced-payment-service', 'flow-rule'),
          ruleId: fc.constantFrom('first-eligible-by-position', 'forced-payment-service', 'rule-1'),
          eligible: fc.array(uuid, { maxLength: 3 }),
          selected: maybe(uuid),
          column: fc.option(maybe(uuid), { nil: undefined }),
          selectedIsColumn: fc.boolean(),
          extra: fc.dictionary(fc.constantFrom('order', 'weights', 'strategy', 'max_attempts'), fc.string()),
        }),
        (c) => {
          const selected = c.selectedIsColumn && c.column !== undefined ? c.column : c.selected;
          const actions = [route({ ...c.extra, rule: c.rule, skipped: [], eligible: c.eligible, selected }, c.ruleId)];
          const columns = c.column === undefined ? {} : { payment_service_id: c.column };
          const stored = asStored(JSON.parse(JSON.stringify(encodeActions(actions, columns))));
          const readColumns = { payment_service_id: c.column ?? null };
          // A write that did not set the column keeps selected: whatever the column holds later.
          expect(
            JSON.stringify(decodeActions(stored, c.column === undefined ? { payment_service_id: 'x' } : readColumns)),
          ).toBe(readBack(actions));
          expect(JSON.stringify(decodeActions(asStored(actions), readColumns))).toBe(readBack(actions));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('inJsonbOrder', () => {
  /** jsonb's order as the database defines it: byte length, then bytes (the first implementation). */
  const jsonbOrder = (keys: string[]) =>
    [...keys].sort((a, b) => {
      const [x, y] = [Buffer.from(a), Buffer.from(b)];
      return x.length - y.length || Buffer.compare(x, y);
    });
  /** Integer-like keys are put first by JavaScript whatever the insertion order: no object can hold jsonb's order for them. */
  const notIndex = (key: string) => !/^(0|[1-9]\d{0,8})$/.test(key);

  it("puts any keys, ASCII or not, in jsonb's order, with their values", () => {
    const keys = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 }));
    fc.assert(
      fc.property(fc.dictionary(keys.filter(notIndex), fc.integer(), { maxKeys: 20 }), (value) => {
        const ordered = inJsonbOrder(value);
        expect(Object.keys(ordered)).toEqual(jsonbOrder(Object.keys(value)));
        for (const key of Object.keys(value)) expect(ordered[key]).toBe(value[key]);
      }),
    );
  });

  it('returns an object already in that order as it is (a snapshot read back)', () => {
    const stored = { id: 'x', bin: '411111', method: 'card', fingerprint: 'f' };
    expect(Object.keys(stored)).toEqual(jsonbOrder(Object.keys(stored)));
    expect(inJsonbOrder(stored)).toBe(stored);
    const restored = { ...stored, label: '1111' };
    expect(Object.keys(inJsonbOrder(restored))).toEqual(['id', 'bin', 'label', 'method', 'fingerprint']);
  });
});
