import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReportStorage } from './report-storage-types.ts';

/**
 * Report files under `DATA_DIR/reports`. A file is written to a temporary name and renamed when
 * complete, so a reader never sees half a file and a crash leaves only a `.partial` to ignore.
 */
export class LocalReportStorage implements ReportStorage {
  private readonly root: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'reports');
  }

  private pathOf(key: string): string {
    const full = path.resolve(this.root, key);
    // Keys are made by reportFileKey; refuse anything that would leave the directory all the same.
    if (!full.startsWith(`${this.root}${path.sep}`))
      throw new Error(`report file key ${key} leaves the reports directory`);
    return full;
  }

  async put(key: string, body: Readable): Promise<number> {
    const target = this.pathOf(key);
    await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const partial = `${target}.${process.pid}.partial`;
    try {
      await pipeline(body, fs.createWriteStream(partial, { mode: 0o600 }));
      await fs.promises.rename(partial, target);
    } catch (error) {
      await fs.promises.rm(partial, { force: true });
      throw error;
    }
    return (await fs.promises.stat(target)).size;
  }

  async get(key: string): Promise<Readable | null> {
    const file = this.pathOf(key);
    try {
      const handle = await fs.promises.open(file, 'r');
      return handle.createReadStream();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.pathOf(key), { force: true });
  }
}
