import pino from 'pino';

/** Log lines kept in memory while stdout is not read: beyond this many bytes, new lines are dropped. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/** pino's destination (sonic-boom) with the methods used here. */
type Boom = pino.DestinationStream & {
  flushSync(): void;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  /** Bytes not yet written, and whether a write is under way (sonic-boom's own fields). */
  _len?: number;
  _writing?: boolean;
};

/**
 * The server's stdout for log lines and the banner, written so that stdout can never hold the
 * process: a pipe nobody reads (`| tee` stopped, a full fifo), a reader that died (EPIPE) or a slow
 * `| pino-pretty` only cost log lines, never the shutdown.
 *
 * - Writes are asynchronous (sonic-boom, as pino's default) on a non-blocking descriptor: a full
 *   pipe makes them wait in memory, up to MAX_BUFFERED_BYTES, then lines are dropped and counted.
 * - A write error (EPIPE, EBADF...) stops writing for good: there is no one left to read.
 * - `flush(ms)` waits for the buffer to drain at most `ms`; then `abandon()` drops what is left and
 *   makes the flush pino registers for process exit a no-op (sonic-boom's would otherwise retry a
 *   full pipe forever, 100 ms at a time, inside process.exit).
 */
export class LogDestination {
  /** Lines dropped because stdout was not read fast enough. */
  dropped = 0;
  /** Why writing stopped (the write error's code), or null. */
  broken: string | null = null;
  private abandoned = false;
  private readonly boom: Boom;

  constructor(fd = 1) {
    // Node opens a pipe or socket on stdout in non-blocking mode when process.stdout is first used.
    // Before that, a pipe from the shell is blocking: a write to it when full would hold a libuv
    // worker thread, and Node waits for those threads at exit.
    if (fd === 1) void process.stdout;
    // A write error on Node's own stdout and stderr streams (a warning, an uncaught error's trace)
    // would otherwise be thrown as an unhandled 'error' event.
    for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
    this.boom = pino.destination({
      dest: fd,
      sync: false,
      maxLength: MAX_BUFFERED_BYTES,
      retryEAGAIN: () => !this.abandoned,
    }) as unknown as Boom;
    this.boom.on('drop', () => void (this.dropped += 1));
    this.boom.on('error', (error) => {
      this.broken ??= (error as NodeJS.ErrnoException).code ?? 'error';
      this.abandon();
    });
  }

  write(chunk: string): void {
    if (this.broken || this.abandoned) return;
    this.boom.write(chunk);
  }

  /** Waits until what was written has left (true), at most `ms` (false). */
  async flush(ms: number): Promise<boolean> {
    // sonic-boom's flush(cb) answers at once with minLength 0: its buffer is watched instead.
    const deadline = Date.now() + ms;
    while (!this.broken && !this.abandoned && ((this.boom._len ?? 0) > 0 || this.boom._writing)) {
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return true;
  }

  /** Stops writing: what is still buffered is dropped, and nothing waits for stdout at exit. */
  abandon(): void {
    if (this.abandoned) return;
    this.abandoned = true;
    this.boom.flushSync = () => {};
    (this.boom as unknown as { write: () => boolean }).write = () => true;
  }
}
