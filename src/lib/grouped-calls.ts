/**
 * Calls made one by one, run together (decision 0156): each `call(item)` waits for a run of
 * `run(items)` that includes its item, and gets its own item's result or error. A run starts on the
 * next turn of the event loop after a call, so the calls of the same turn share it; calls made while
 * a run is under way wait for it and share the next. At most one run at a time, and at most
 * `maxSize` items a run. `run` resolves to one settled result per item, in the items' order (a
 * run that throws fails every item it was handed).
 */
export class GroupedCalls<I, O> {
  private waiting: Array<{ item: I; resolve: (value: O) => void; reject: (error: unknown) => void }> = [];
  private running = false;
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<Array<PromiseSettledResult<O>>>,
    private readonly maxSize: number,
  ) {}

  call(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running || this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const taken = this.waiting.splice(0, this.maxSize);
    try {
      const results = await this.run(taken.map((t) => t.item)).catch((error: unknown) =>
        taken.map((): PromiseSettledResult<O> => ({ status: 'rejected', reason: error })),
      );
      taken.forEach((t, i) => {
        const result = results[i];
        if (result?.status === 'fulfilled') t.resolve(result.value);
        else t.reject(result ? result.reason : new Error('no result for a grouped call'));
      });
    } finally {
      this.running = false;
      this.schedule();
    }
  }
}
