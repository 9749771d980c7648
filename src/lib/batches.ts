/**
 * Runs a batch step (delete up to N expired rows, each batch its own statement) until a batch
 * finds nothing, and returns how many rows the batches handled in all. Batches keep a large backlog
 * from becoming one long transaction that holds locks for minutes.
 */
export async function inBatchesUntilDone(step: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let handled = await step(); handled > 0; handled = await step()) total += handled;
  return total;
}
