import type { Config } from '../../../config.ts';
import { LocalReportStorage } from './local-storage.ts';
import type { ReportStorage } from './report-storage-types.ts';
import { S3ReportStorage } from './s3-storage.ts';

const instances = new WeakMap<Config, ReportStorage>();

/** The backend the configuration names (`REPORTS_STORAGE`), one per configuration: processes hold no other state. */
export function reportStorage(config: Config): ReportStorage {
  let storage = instances.get(config);
  if (!storage) {
    storage =
      config.reports.storage === 's3'
        ? new S3ReportStorage(config.reports.s3!)
        : new LocalReportStorage(config.dataDir);
    instances.set(config, storage);
  }
  return storage;
}

export const reportFileKey = (merchantAccountId: string, executionId: string) =>
  `${encodeURIComponent(merchantAccountId)}/${executionId}.csv.gz`;
