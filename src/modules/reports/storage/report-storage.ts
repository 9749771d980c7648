import type { Readable } from 'node:stream';
import type { Config } from '../../../config.ts';
import { LocalReportStorage } from './local-storage.ts';
import { S3ReportStorage } from './s3-storage.ts';

/**
 * Where report files live. Keys are `<merchant account>/<execution id>.csv.gz`; a file is written
 * once, read by downloads, deleted by the retention purge.
 */
export interface ReportStorage {
  /** Stores the stream under `key` whole or not at all (no half-written file is ever readable). Returns its size in bytes. */
  put(key: string, body: Readable): Promise<number>;
  /** The file's bytes, or null when there is no such file. */
  get(key: string): Promise<Readable | null>;
  /** Removes the file; a missing file is not an error. */
  delete(key: string): Promise<void>;
}

const instances = new WeakMap<Config, ReportStorage>();

/** The backend the configuration names (`REPORTS_STORAGE`), one per configuration: processes hold no other state. */
export function reportStorage(config: Config): ReportStorage {
  let storage = instances.get(config);
  if (!storage) {
    storage = config.reports.storage === 's3' ? new S3ReportStorage(config.reports.s3!) : new LocalReportStorage(config.dataDir);
    instances.set(config, storage);
  }
  return storage;
}

export const reportFileKey = (merchantAccountId: string, executionId: string) => `${encodeURIComponent(merchantAccountId)}/${executionId}.csv.gz`;
