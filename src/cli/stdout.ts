/**
 * The CLI's stdout when its reader may go away: `svc openapi | head` closes the pipe after ten
 * lines, `svc listen | tee f` loses tee on Ctrl-C. Node reports that as an 'error' event (EPIPE)
 * on process.stdout, which would otherwise end the process with a stack trace before a command has
 * cleaned up. After it, writes are dropped and `closed` resolves so a command can finish quietly.
 */
export interface CliStdout {
  write(text: string): void;
  /** Resolves when the reader of stdout is gone. */
  readonly closed: Promise<void>;
  isClosed(): boolean;
}

export function guardStdout(
  stream: NodeJS.WriteStream = process.stdout,
  errStream: NodeJS.WriteStream = process.stderr,
): CliStdout {
  let gone = false;
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  stream.on('error', (error: NodeJS.ErrnoException) => {
    // Whatever the error, nothing more can be written there: the command finishes without it.
    gone = true;
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') errStream.write(`stdout: ${error.message}\n`);
    markClosed();
  });
  // stderr's reader may be gone too (`2>&1 | head`): its errors are dropped.
  if (errStream !== stream) errStream.on('error', () => {});
  return {
    write(text) {
      if (!gone) stream.write(text);
    },
    closed,
    isClosed: () => gone,
  };
}
