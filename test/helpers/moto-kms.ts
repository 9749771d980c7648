import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import { CreateAliasCommand, CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';

/**
 * A local AWS KMS: moto's server (PyPI `moto[server]`), started on a free port by the test that
 * needs it and stopped after. `.ci/run` installs moto; a machine without it skips those tests
 * with a message saying so (`motoAvailable`).
 */
export interface LocalKms {
  endpoint: string;
  region: string;
  /** Any credentials do for moto; passed explicitly so the tests read no AWS profile. */
  credentials: { accessKeyId: string; secretAccessKey: string };
  client: KMSClient;
  /** A new symmetric key; its ARN. With `alias`, also `alias/<alias>` for it. */
  createKey(alias?: string): Promise<string>;
  stop(): Promise<void>;
}

const PYTHON = process.env.PYTHON ?? 'python3';

export const motoAvailable: boolean =
  spawnSync(PYTHON, ['-c', 'import moto.server, flask'], { stdio: 'ignore' }).status === 0;

if (!motoAvailable)
  console.warn(
    "SKIPPED: the AWS KMS tests need moto's server (pip install 'moto[server]'); .ci/run installs it, this machine lacks it",
  );

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`moto's server exited (${child.exitCode}): ${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`moto's server did not listen on ${port} within 30 s: ${log()}`);
}

export async function startLocalKms(): Promise<LocalKms> {
  const port = await freePort();
  const child = spawn(PYTHON, ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => void (output = `${output}${chunk.toString('utf8')}`.slice(-4000));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  try {
    await waitForPort(port, child, () => output);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const endpoint = `http://127.0.0.1:${port}`;
  const region = 'us-east-1';
  const credentials = { accessKeyId: 'moto-testing', secretAccessKey: 'moto-testing' };
  const client = new KMSClient({ region, endpoint, credentials });
  return {
    endpoint,
    region,
    credentials,
    client,
    async createKey(alias) {
      const created = await client.send(new CreateKeyCommand({ Description: 'svc test master key' }));
      const arn = created.KeyMetadata!.Arn!;
      if (alias) await client.send(new CreateAliasCommand({ AliasName: `alias/${alias}`, TargetKeyId: arn }));
      return arn;
    },
    async stop() {
      client.destroy();
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
