import { describeSteal, parseMachineCpuTicks, readMachineCpuTicks, StealMeter, type MachineCpuTicks } from './machine-steal';

describe('parseMachineCpuTicks', () => {
  it('adds the eight times of the machine-wide line and keeps steal apart, leaving guest time out', () => {
    const stat = 'cpu  100 20 30 400 5 1 2 42 7 0\ncpu0 50 10 15 200 2 0 1 21 3 0\nintr 1\n';
    expect(parseMachineCpuTicks(stat)).toEqual({ total: 600, steal: 42 });
  });

  it('refuses text that is not /proc/stat', () => {
    expect(parseMachineCpuTicks('intr 1 2 3\n')).toBeNull();
    expect(parseMachineCpuTicks('cpu  1 2 3\n')).toBeNull();
    expect(parseMachineCpuTicks('cpu  1 2 3 x 5 6 7 8\n')).toBeNull();
  });
});

describe('StealMeter', () => {
  /** Hands out the readings in turn; the meter reads once at start and once per sample or stop. */
  const readings = (...ticks: (MachineCpuTicks | null)[]) => {
    let next = 0;
    return () => ticks[next++] ?? null;
  };

  it('gives the share of the time between start and stop that the host took', () => {
    const meter = new StealMeter(readings({ total: 1_000, steal: 10 }, { total: 2_000, steal: 260 }));
    expect(meter.stop()).toEqual({ share: 0.25, worstShare: 0.25, intervalMs: 1_000 });
  });

  it('gives the worst interval apart from the whole span, so that a burst is not averaged away', () => {
    jest.useFakeTimers();
    try {
      const meter = new StealMeter(
        readings({ total: 0, steal: 0 }, { total: 1_000, steal: 0 }, { total: 2_000, steal: 600 }, { total: 3_000, steal: 600 }, { total: 4_000, steal: 600 }),
        1_000,
      );
      jest.advanceTimersByTime(3_000);
      const summary = meter.stop();
      expect(summary?.share).toBeCloseTo(0.15);
      expect(summary?.worstShare).toBeCloseTo(0.6);
    } finally {
      jest.useRealTimers();
    }
  });

  it('leaves the stretch between the last sample and stop out of the worst interval: a few ticks would read as a burst', () => {
    jest.useFakeTimers();
    try {
      const meter = new StealMeter(readings({ total: 0, steal: 0 }, { total: 1_000, steal: 10 }, { total: 1_002, steal: 11 }), 1_000);
      jest.advanceTimersByTime(1_000);
      const summary = meter.stop();
      expect(summary?.worstShare).toBeCloseTo(0.011, 3);
    } finally {
      jest.useRealTimers();
    }
  });

  it('gives null when a reading is missing or no time passed', () => {
    expect(new StealMeter(readings(null, { total: 10, steal: 1 })).stop()).toBeNull();
    expect(new StealMeter(readings({ total: 10, steal: 1 }, { total: 10, steal: 1 })).stop()).toBeNull();
  });
});

describe('readMachineCpuTicks', () => {
  const onLinux = process.platform === 'linux' ? it : it.skip;
  onLinux('reads this machine (Linux only: elsewhere there is no /proc/stat)', () => {
    const ticks = readMachineCpuTicks();
    expect(ticks?.total).toBeGreaterThan(0);
    expect(ticks?.steal).toBeGreaterThanOrEqual(0);
    expect(ticks?.steal).toBeLessThanOrEqual(ticks?.total ?? 0);
  });
});

describe('describeSteal', () => {
  it('says the shares in percent, or that it was not measured', () => {
    expect(describeSteal({ share: 0.123, worstShare: 0.52, intervalMs: 1_000 })).toBe("the host took 12% of the machine's CPU time (steal), up to 52% in 1 s");
    expect(describeSteal(null)).toBe('host steal not measured');
  });
});
