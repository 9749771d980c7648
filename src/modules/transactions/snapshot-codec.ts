import { sameStoredValue } from '../../lib/same-stored-value.ts';

/**
 * The `payment_method` and `payment_service` snapshots of a transaction's row, stored without the
 * values the row already holds in its columns (decision 0158), and rebuilt where the row is read.
 *
 * - `payment_method` stored without `method` (= the `method` column), and without `id`
 *   (= `payment_method_id`) and `fingerprint` (= `card_fingerprint`) when those equal their
 *   column. A stored snapshot without `method` is an encoded one: every writer's snapshot has it.
 * - `payment_service` stored without `type` (the constant `payment-service`), and without `id`
 *   (= `payment_service_id`) and `method` (= `method`) when those equal their column. A stored
 *   snapshot without `type` is an encoded one: every writer's snapshot has it.
 *
 * - `actions`: a routing decision's outcome (a `route-transaction` action whose outcome has
 *   `eligible`: every such outcome has `rule` and `selected`) stored without `rule` when it equals
 *   the action's `rule_id`, and without `selected` when it equals the `payment_service_id` column.
 *
 * A snapshot is encoded only when decoding it against the same columns gives it back exactly (the
 * same keys and values), else stored whole; a whole snapshot (every row written before 0158) reads
 * as it is. The rebuilt snapshot's keys are in jsonb's order (shorter first, then bytewise), the
 * order in which the database hands back the whole snapshot, so whatever renders it sees the same
 * object as before.
 *
 * A write that sets a column a snapshot is rebuilt from must write that snapshot too (the row's
 * stored snapshot could be an encoded one, rebuilt from the old value): `encodeTransactionWrite`
 * refuses it.
 */

/** The columns the snapshots are rebuilt from; `undefined`: not known (not in the write). */
export interface SnapshotColumns {
  method?: string | null;
  payment_method_id?: string | null;
  card_fingerprint?: string | null;
  payment_service_id?: string | null;
}

type Json = Record<string, unknown>;

const SERVICE_TYPE = 'payment-service';

/** Each snapshot, with the columns it may be rebuilt from. */
const DEPENDS: ReadonlyArray<readonly [snapshot: string, columns: ReadonlyArray<keyof SnapshotColumns>]> = [
  ['payment_method', ['method', 'payment_method_id', 'card_fingerprint']],
  ['payment_service', ['method', 'payment_service_id']],
  ['actions', ['payment_service_id']],
];

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keys made of ASCII only: their UTF-16 order is their bytes' order, their length their size. */
const ASCII = /^[^\u0080-\uffff]*$/;

/** jsonb's order of two ASCII keys: shorter first, then bytewise. */
const asciiOrder = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/**
 * Keys in jsonb's order: shorter first, then bytewise (as the database returns an object). An object
 * already in that order (a snapshot read back is, until a key is restored at its end) is returned
 * as it is; a read of a transaction rebuilds three snapshots, so this is on every request's path.
 */
export function inJsonbOrder(value: Json): Json {
  const keys = Object.keys(value);
  if (keys.every((key) => ASCII.test(key))) {
    let ordered = true;
    for (let i = 1; i < keys.length && ordered; i++) ordered = asciiOrder(keys[i - 1]!, keys[i]!) < 0;
    if (ordered) return value;
    keys.sort(asciiOrder);
  } else {
    const bytes = new Map(keys.map((key) => [key, Buffer.from(key)]));
    keys.sort((a, b) => {
      const [x, y] = [bytes.get(a)!, bytes.get(b)!];
      return x.length - y.length || Buffer.compare(x, y);
    });
  }
  // fromEntries defines each key as its own (an assignment of `__proto__` would set the prototype).
  return Object.fromEntries(keys.map((key) => [key, value[key]]));
}

/** Restores `key` from `column` when the stored snapshot lacks it and the column holds a value. */
function restore(out: Json, key: string, column: string | null | undefined, name: string): void {
  if (key in out) return;
  if (column === undefined) throw new Error(`an encoded transaction snapshot needs the column ${name} to be read`);
  if (column !== null) out[key] = column;
}

export function decodePaymentMethod(stored: unknown, columns: SnapshotColumns): unknown {
  if (!isObject(stored) || 'method' in stored) return stored;
  const out: Json = { ...stored };
  restore(out, 'method', columns.method, 'method');
  restore(out, 'id', columns.payment_method_id, 'payment_method_id');
  restore(out, 'fingerprint', columns.card_fingerprint, 'card_fingerprint');
  return inJsonbOrder(out);
}

export function decodePaymentService(stored: unknown, columns: SnapshotColumns): unknown {
  if (!isObject(stored) || 'type' in stored) return stored;
  const out: Json = { ...stored, type: SERVICE_TYPE };
  restore(out, 'id', columns.payment_service_id, 'payment_service_id');
  restore(out, 'method', columns.method, 'method');
  return inJsonbOrder(out);
}

/** A routing decision's outcome (the only outcome the codec changes), or null. */
function routingOutcome(action: unknown): Json | null {
  if (!isObject(action) || action.id !== 'route-transaction' || !isObject(action.outcome)) return null;
  return 'eligible' in action.outcome ? action.outcome : null;
}

export function decodeActions(stored: unknown, columns: SnapshotColumns): unknown {
  if (!Array.isArray(stored)) return stored;
  let out: unknown[] = stored;
  stored.forEach((action: Json, index) => {
    const outcome = routingOutcome(action);
    if (!outcome || ('rule' in outcome && 'selected' in outcome)) return;
    const rebuilt: Json = { ...outcome };
    if (!('rule' in rebuilt)) rebuilt.rule = action.rule_id;
    restore(rebuilt, 'selected', columns.payment_service_id, 'payment_service_id');
    if (out === stored) out = [...stored];
    out[index] = { ...action, outcome: inJsonbOrder(rebuilt) };
  });
  return out;
}

export function encodeActions(actions: unknown, columns: SnapshotColumns): unknown {
  if (!Array.isArray(actions)) return actions;
  let out: unknown[] = actions;
  actions.forEach((action: Json, index) => {
    const outcome = routingOutcome(action);
    if (!outcome || !('rule' in outcome) || !('selected' in outcome)) return;
    const encoded: Json = { ...outcome };
    omitEqual(encoded, 'rule', typeof action.rule_id === 'string' ? action.rule_id : undefined);
    // `selected` only against a known column (a write that sets payment_service_id).
    if (columns.payment_service_id !== undefined) omitEqual(encoded, 'selected', columns.payment_service_id);
    if (Object.keys(encoded).length === Object.keys(outcome).length) return;
    const candidate = { ...action, outcome: encoded };
    const back = routingOutcome((decodeActions([candidate], columns) as unknown[])[0]);
    if (!sameStoredValue(back, outcome)) return;
    if (out === actions) out = [...actions];
    out[index] = candidate;
  });
  return out;
}

/** Omits `key` when its value is a string equal to the column's. */
function omitEqual(out: Json, key: string, column: string | null | undefined): void {
  if (typeof out[key] === 'string' && out[key] === column) delete out[key];
}

const known = (columns: SnapshotColumns, names: ReadonlyArray<keyof SnapshotColumns>) =>
  names.every((name) => columns[name] !== undefined);

export function encodePaymentMethod(snapshot: unknown, columns: SnapshotColumns): unknown {
  if (!isObject(snapshot) || typeof snapshot.method !== 'string' || !known(columns, DEPENDS[0]![1])) return snapshot;
  if (snapshot.method !== columns.method) return snapshot;
  const out: Json = { ...snapshot };
  delete out.method;
  omitEqual(out, 'id', columns.payment_method_id);
  omitEqual(out, 'fingerprint', columns.card_fingerprint);
  return sameStoredValue(decodePaymentMethod(out, columns), snapshot) ? out : snapshot;
}

export function encodePaymentService(snapshot: unknown, columns: SnapshotColumns): unknown {
  if (!isObject(snapshot) || snapshot.type !== SERVICE_TYPE || !known(columns, DEPENDS[1]![1])) return snapshot;
  const out: Json = { ...snapshot };
  delete out.type;
  omitEqual(out, 'id', columns.payment_service_id);
  omitEqual(out, 'method', columns.method);
  return sameStoredValue(decodePaymentService(out, columns), snapshot) ? out : snapshot;
}

/**
 * A transaction's insert row or update patch with its snapshots encoded (JSON text in, JSON text
 * out; a snapshot is encoded only when the write also sets every column it is rebuilt from, a
 * column an insert leaves out being null). Throws when an update sets such a column without the
 * snapshot.
 */
export function encodeTransactionWrite<W extends object>(write: W, kind: 'insert' | 'update' = 'update'): W {
  const values = write as Record<string, unknown>;
  for (const [snapshot, names] of DEPENDS) {
    if (kind === 'insert' || values[snapshot] !== undefined) continue;
    const set = names.find((name) => values[name] !== undefined);
    if (set)
      throw new Error(
        `a transaction write that sets ${set} must write ${snapshot} too (its stored snapshot is rebuilt from ${set})`,
      );
  }
  const columns: SnapshotColumns = {};
  for (const name of ['method', 'payment_method_id', 'card_fingerprint', 'payment_service_id'] as const) {
    const value = kind === 'insert' && values[name] === undefined ? null : values[name];
    if (value === null || typeof value === 'string') columns[name] = value;
  }
  let out = values;
  const encode = (key: string, codec: (snapshot: unknown, columns: SnapshotColumns) => unknown) => {
    const text = values[key];
    if (typeof text !== 'string') return;
    const snapshot: unknown = JSON.parse(text);
    const encoded = codec(snapshot, columns);
    if (encoded === snapshot) return;
    if (out === values) out = { ...values };
    out[key] = JSON.stringify(encoded);
  };
  encode('payment_method', encodePaymentMethod);
  encode('payment_service', encodePaymentService);
  encode('actions', encodeActions);
  return out as W;
}

/**
 * A transaction's row as read (any columns, among them every column an encoded snapshot it holds
 * is rebuilt from), its snapshots rebuilt in place; returns the same object.
 */
export function decodeTransactionRow<R extends object>(row: R): R {
  const values = row as Record<string, unknown>;
  const columns = values as SnapshotColumns;
  if ('payment_method' in values) values.payment_method = decodePaymentMethod(values.payment_method, columns);
  if ('payment_service' in values) values.payment_service = decodePaymentService(values.payment_service, columns);
  if ('actions' in values) values.actions = decodeActions(values.actions, columns);
  return row;
}

/** `decodeTransactionRow` of each row. */
export function decodeTransactionRows<R extends object>(rows: R[]): R[] {
  for (const row of rows) decodeTransactionRow(row);
  return rows;
}
