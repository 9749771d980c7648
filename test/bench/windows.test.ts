import { describe, expect, it } from 'vitest';
import { formatWindow, waitsAgainstP99, windowsOf, type Sample } from '../../bench/windows.ts';

/** bench/windows.ts cuts a paced row into windows for `npm run bench:windows`. */
describe('bench/windows.ts', () => {
  const sample = (at: number, waits: string[], ticks: { server: number; postgres: number; host: number }): Sample => ({
    at,
    waits,
    serverTicks: ticks.server,
    postgresTicks: ticks.postgres,
    hostBusyTicks: ticks.host,
  });

  it('puts each request, pause and sample in the window it fell in, and gives CPU as a share of one CPU', () => {
    const points = [
      [1000, 10],
      [1100, 30],
      [1249, 20],
      [1250, 90],
      [1499, 70],
    ] as const;
    const gc = [
      { at: 1010, kind: 'minor', ms: 4 },
      { at: 1300, kind: 'major', ms: 12 },
    ];
    const samples = [
      sample(1000, ['cpu', 'WALSync'], { server: 0, postgres: 0, host: 0 }),
      sample(1200, ['cpu'], { server: 10, postgres: 5, host: 30 }),
      sample(1250, ['WALWrite', 'WALWrite', 'cpu'], { server: 10, postgres: 5, host: 30 }),
      sample(1450, ['WALWrite'], { server: 30, postgres: 25, host: 60 }),
    ];
    const windows = windowsOf(points, gc, samples, { startMs: 1000, endMs: 1750, windowMs: 250, ticksPerSecond: 100 });
    expect(windows).toHaveLength(3);
    const [first, second, third] = windows;
    expect(first).toMatchObject({ offsetMs: 0, answered: 3, p50: 20, p99: 30, active: 1.5, gc: [gc[0]] });
    // 10 ticks of 10 ms in 200 ms: half a CPU; the host's 30 ticks: one and a half.
    expect(first!.serverCpu).toBeCloseTo(50);
    expect(first!.postgresCpu).toBeCloseTo(25);
    expect(first!.hostCpu).toBeCloseTo(150);
    expect(first!.waits).toEqual([
      ['cpu', 2],
      ['WALSync', 1],
    ]);
    expect(second).toMatchObject({ offsetMs: 250, answered: 2, p50: 70, p99: 90, active: 2, gc: [gc[1]] });
    expect(second!.waits).toEqual([
      ['WALWrite', 3],
      ['cpu', 1],
    ]);
    expect(second!.postgresCpu).toBeCloseTo(100);
    // No request, no sample: nothing to say but that.
    expect(third).toMatchObject({ offsetMs: 500, answered: 0, active: 0, gc: [] });
    expect(third!.p99).toBeNaN();
    expect(third!.serverCpu).toBeNaN();
    expect(formatWindow(second!, 50)).toContain('p99    90 *');
    expect(formatWindow(first!, 50)).toContain('p99    30  ');
    expect(formatWindow(third!, 50)).toContain('server   – %');
  });

  it('sets the windows that saw a wait event against the others', () => {
    const windows = windowsOf(
      [
        [0, 10],
        [100, 100],
        [200, 30],
      ],
      [],
      [
        sample(0, ['cpu'], { server: 0, postgres: 0, host: 0 }),
        sample(100, ['WALInitWrite', 'cpu'], { server: 0, postgres: 0, host: 0 }),
        sample(200, [], { server: 0, postgres: 0, host: 0 }),
      ],
      { startMs: 0, endMs: 300, windowMs: 100, ticksPerSecond: 100 },
    );
    expect(waitsAgainstP99(windows)).toEqual([
      { wait: 'cpu', with: 2, withMean: 55, withoutMean: 30 },
      { wait: 'WALInitWrite', with: 1, withMean: 100, withoutMean: 20 },
    ]);
  });

  it('gives the p99 of the time in the server and of the lateness where the points carry them', () => {
    const [known, unknown] = windowsOf(
      [
        [0, 40, 30, 2],
        [10, 20, 15, 0],
        [100, 25],
      ],
      [],
      [],
      { startMs: 0, endMs: 200, windowMs: 100, ticksPerSecond: 100 },
    );
    expect(known).toMatchObject({ p99: 40, serverP99: 30, lateP99: 2 });
    expect(unknown!.serverP99).toBeNaN();
    expect(unknown!.lateP99).toBeNaN();
    expect(formatWindow(known!, 50)).toContain('in server   30  late   2');
    expect(formatWindow(unknown!, 50)).toContain('in server    –  late   –');
  });
});
