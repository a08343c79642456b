import { formatTable, percentile, summarise, timeSeries } from './bench-harness';

describe('bench harness', () => {
  it('computes nearest-rank percentiles', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
  });

  it('compares each series with the baseline median', () => {
    const rows = summarise('s', [
      { label: 'in-process', samplesMs: [1, 1, 1], wallMs: 3, baseline: true },
      { label: 'over NATS', samplesMs: [4, 4, 4], wallMs: 12 },
    ]);
    expect(rows[1]).toMatchObject({ medianMs: 4, vsBaseline: '4.0×', throughput: 250 });
    expect(formatTable(rows)).toContain('over NATS');
  });

  it('times every operation under the given concurrency', async () => {
    let inFlight = 0;
    let peak = 0;
    const series = await timeSeries('x', 20, 4, async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
    });
    expect(series.samplesMs).toHaveLength(20);
    expect(peak).toBe(4);
  });
});
