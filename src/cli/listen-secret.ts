import fs from 'node:fs';
import path from 'node:path';
import { generateSecret } from '../modules/webhook-subscriptions/webhook-secrets.ts';

/** Where `svc listen` keeps this machine's signing secret, in DATA_DIR. */
export const LISTEN_SECRET_FILE = 'cli-listen-secret';

const SHAPE = /^whsec_[A-Za-z0-9_-]{43}$/;

/**
 * The signing secret `svc listen` signs forwarded events with: one per machine (per DATA_DIR),
 * created on the first run (mode 0600, never overwritten) and read by every later one, so the local
 * app that checks it keeps working across runs. The server's own secret for each temporary
 * subscription changes every run; `svc listen` checks it and signs again with this one.
 */
export function machineListenSecret(dataDir: string): { secret: string; file: string; created: boolean } {
  const file = path.resolve(dataDir, LISTEN_SECRET_FILE);
  try {
    return { secret: readSecret(file), file, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = generateSecret();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another `svc listen` created it at the same moment: use that one.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { secret: readSecret(file), file, created: false };
    throw error;
  }
  return { secret, file, created: true };
}

function readSecret(file: string): string {
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (!SHAPE.test(secret))
    throw new Error(
      `${file} does not hold a signing secret (whsec_ and 43 characters): delete it and run svc listen again to create a new one`,
    );
  return secret;
}
