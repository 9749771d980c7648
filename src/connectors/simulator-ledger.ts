/**
 * What a built-in simulator (mock-card, the mock gift card service) received: its memory of calls,
 * as a real provider keeps its own. The simulators stay deterministic (an outcome comes from the
 * amount, the card and the idempotency key), but whether a call reached them is a fact no
 * derivation can give: a status query about a call that never arrived (the process died before
 * sending it) must answer `not_found`, or reconciliation records money that never moved.
 *
 * The server keeps it in the database (`simulator_calls`, modules/simulator-calls/), so it
 * outlives a crash and is shared by every process; like a provider's own storage it is not ours
 * (connectors still never touch our tables: STYLE C4). Without one, a simulator remembers in
 * memory for the life of the object (unit tests).
 */
export interface SimulatorCall {
  /** The simulator (`mock-card`, `mock-gift-card`). */
  service: string;
  /** The call (`authorize`, `capture`, `redeem`, ...). */
  operation: string;
  idempotencyKey: string;
}

export interface SimulatorLedger {
  /** Notes a received call with its answer; the first answer for a key is kept. */
  received(call: SimulatorCall, answer: unknown): Promise<void>;
  /** The call as received (with its first answer), or null: the simulator never received it. */
  lookup(call: SimulatorCall): Promise<{ answer: unknown } | null>;
}

const keyOf = (call: SimulatorCall) => `${call.service}\n${call.operation}\n${call.idempotencyKey}`;

/** A ledger in memory: the default of a simulator built without one. */
export function memoryLedger(): SimulatorLedger {
  const calls = new Map<string, unknown>();
  return {
    async received(call, answer) {
      if (!calls.has(keyOf(call))) calls.set(keyOf(call), answer ?? null);
    },
    async lookup(call) {
      return calls.has(keyOf(call)) ? { answer: calls.get(keyOf(call)) } : null;
    },
  };
}
