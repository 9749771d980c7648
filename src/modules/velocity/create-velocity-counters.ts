import type { Db } from '../../db/executor.ts';
import type { VelocityCounters, VelocityCountersOptions } from './velocity-counters.ts';
import { SharedVelocityCounters } from './velocity-shared-counters.ts';
import { SoleWriterCounters } from './velocity-sole-writer.ts';

/** The counters for the database: a sole writer's on embedded PGlite (`soleWriter`), shared ones otherwise. */
export function createVelocityCounters(db: Db, options: VelocityCountersOptions = {}): VelocityCounters {
  return options.soleWriter ? new SoleWriterCounters(db, options) : new SharedVelocityCounters(db, options);
}
