import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startAbuse, type Abuse } from './abusive-clients.ts';

/**
 * Runs the abusive clients in a child process, as they would be on other machines: their sockets
 * and timers then do not slow the event loop of the process that measures normal traffic.
 * `node --import tsx abuse-process.ts <port> <counts JSON>` prints the outcome as JSON on SIGTERM.
 */
export async function startAbuseProcess(
  port: number,
  counts: Record<string, number>,
): Promise<{ stop(): Promise<Pick<Abuse, 'closed' | 'answers'>> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), String(port), JSON.stringify(counts)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d.toString()));
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  return {
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      return JSON.parse(out.slice(out.indexOf('\n') + 1));
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const abuse = startAbuse(Number(process.argv[2]), JSON.parse(process.argv[3]!));
  process.stdout.write('started\n');
  process.once('SIGTERM', () => {
    abuse.stop();
    process.stdout.write(JSON.stringify({ closed: abuse.closed, answers: abuse.answers }), () => process.exit(0));
  });
}
