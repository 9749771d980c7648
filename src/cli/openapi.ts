import type { Config } from '../config.ts';
import { buildApp } from '../app.ts';
import { createRuntime } from '../deps.ts';

/** Prints the OpenAPI document of the routes, built on a throwaway in-memory database. */
export async function printOpenApi(config: Config): Promise<void> {
  const runtime = await createRuntime({ ...config, databaseUrl: null, logLevel: 'silent' }, { inMemory: true });
  try {
    const app = await buildApp(runtime.deps);
    process.stdout.write(`${JSON.stringify(app.swagger(), null, 2)}\n`);
    await app.close();
  } finally {
    await runtime.close();
  }
}
