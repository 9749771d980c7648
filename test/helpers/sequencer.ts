import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * vitest's order (longest first when it has timings from an earlier run, otherwise largest file
 * first), except that the files starting real server processes (test/e2e/, 15-40 s each) go
 * first: a CI checkout has no timings, and one of them started last kept the other worker idle.
 */
export class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const long = (file: TestSpecification) => file.moduleId.includes('/test/e2e/');
    return [...sorted.filter(long), ...sorted.filter((file) => !long(file))];
  }
}
