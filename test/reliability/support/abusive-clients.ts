import net from 'node:net';

/** Abusive clients against one server; each reconnects when the server cuts it, until `stop()`. */
export interface Abuse {
  /** Connections the server closed, by kind, with how long each lived (ms). */
  closed: Record<string, number[]>;
  /** Answers the abusive clients got (status line and body), by kind. */
  answers: Record<string, string[]>;
  stop(): void;
}

type Behaviour = (socket: net.Socket, stopped: () => boolean) => void;

const BEHAVIOURS: Record<string, Behaviour> = {
  // Connects and says nothing.
  idle: () => undefined,
  // Sends a header line every 500 ms, never the blank line that ends the headers.
  'slow-header': (socket, stopped) => {
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const timer = setInterval(
      () => (stopped() || socket.destroyed ? clearInterval(timer) : socket.write(`X-Slow-${Date.now()}: 1\r\n`)),
      500,
    );
    socket.once('close', () => clearInterval(timer));
  },
  // Announces a 100 kB body and sends 10 bytes every 500 ms.
  'slow-body': (socket, stopped) => {
    socket.write(
      'POST /merchant-accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"id":"',
    );
    const timer = setInterval(
      () => (stopped() || socket.destroyed ? clearInterval(timer) : socket.write('aaaaaaaaaa')),
      500,
    );
    socket.once('close', () => clearInterval(timer));
  },
  // 64 kB of headers at once.
  'oversized-headers': (socket) => {
    socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
  },
};

export function startAbuse(port: number, counts: Record<keyof typeof BEHAVIOURS, number>): Abuse {
  let stopped = false;
  const abuse: Abuse = { closed: {}, answers: {}, stop: () => void (stopped = true) };
  const sockets = new Set<net.Socket>();
  const open = (kind: string) => {
    if (stopped) return;
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    sockets.add(socket);
    let received = '';
    socket.on('data', (d) => (received += d.toString()));
    socket.on('error', () => undefined);
    socket.on('connect', () => BEHAVIOURS[kind]!(socket, () => stopped));
    socket.on('close', () => {
      sockets.delete(socket);
      if (stopped) return;
      (abuse.closed[kind] ??= []).push(Date.now() - started);
      if (received) (abuse.answers[kind] ??= []).push(received);
      // Reconnect a little later: the abuse goes on for as long as the measurement.
      setTimeout(() => open(kind), 500);
    });
  };
  for (const [kind, n] of Object.entries(counts)) for (let i = 0; i < n; i++) open(kind);
  const stop = abuse.stop;
  abuse.stop = () => {
    stop();
    for (const socket of sockets) socket.destroy();
  };
  return abuse;
}
