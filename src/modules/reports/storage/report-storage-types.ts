import type { Readable } from 'node:stream';

/**
 * Where report files live. Keys are `<merchant account>/<execution id>.csv.gz`; a file is written
 * once, read by downloads, deleted by the retention purge. Its backends (local-storage.ts,
 * s3-storage.ts) implement it here, below report-storage.ts, which chooses between them.
 */
export interface ReportStorage {
  /** Stores the stream under `key` whole or not at all (no half-written file is ever readable). Returns its size in bytes. */
  put(key: string, body: Readable): Promise<number>;
  /** The file's bytes, or null when there is no such file. */
  get(key: string): Promise<Readable | null>;
  /** Removes the file; a missing file is not an error. */
  delete(key: string): Promise<void>;
}
