import { randomBytes } from 'node:crypto';
import type { Config } from '../config.ts';
import { Keyring } from '../vault/keyring.ts';
import { buildApp } from '../app.ts';
import { createRuntime } from '../deps.ts';

/** Prints the OpenAPI document of the routes, built on a throwaway in-memory database. */
export async function printOpenApi(
  config: Config,
  write: (text: string) => void = (text) => void process.stdout.write(text),
): Promise<void> {
  // A throwaway key: printing the document must not create key files.
  const runtime = await createRuntime(
    { ...config, databaseUrl: null, logLevel: 'silent' },
    { inMemory: true, keyring: new Keyring(randomBytes(32)) },
  );
  try {
    const app = await buildApp(runtime.deps);
    write(`${JSON.stringify(app.swagger(), null, 2)}\n`);
    await app.close();
  } finally {
    await runtime.close();
  }
}
