/** A named series of timings; `baseline` marks the series the others are compared with. */
export interface Measurement {
  label: string;
  samplesMs: number[];
  /** Wall time of the whole series, for throughput. */
  wallMs: number;
  /** Operations in the series (defaults to the number of samples). */
  operations?: number;
  baseline?: boolean;
  /** Free-form figures worth printing (e.g. projection lag). */
  notes?: string;
}

export interface Scenario {
  name: string;
  description: string;
  run(): Promise<Measurement[]>;
}

export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return Number.NaN;
  const index = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[index] ?? Number.NaN;
}

export interface Row {
  scenario: string;
  series: string;
  n: number;
  medianMs: number;
  p99Ms: number;
  throughput: number;
  vsBaseline: string;
  notes: string;
}

export function summarise(scenario: string, measurements: Measurement[]): Row[] {
  const baseline = measurements.find((m) => m.baseline);
  const baselineMedian = baseline ? percentile([...baseline.samplesMs].sort((a, b) => a - b), 50) : Number.NaN;
  return measurements.map((m) => {
    const sorted = [...m.samplesMs].sort((a, b) => a - b);
    const median = percentile(sorted, 50);
    return {
      scenario,
      series: m.label + (m.baseline ? ' (baseline)' : ''),
      n: m.samplesMs.length,
      medianMs: median,
      p99Ms: percentile(sorted, 99),
      throughput: ((m.operations ?? m.samplesMs.length) / m.wallMs) * 1000,
      vsBaseline: baseline && !m.baseline ? `${(median / baselineMedian).toFixed(1)}×` : '',
      notes: m.notes ?? '',
    };
  });
}

export function formatTable(rows: Row[]): string {
  const header = ['scenario', 'series', 'n', 'median ms', 'p99 ms', 'ops/s', 'vs baseline', 'notes'];
  const cells = rows.map((r) => [
    r.scenario,
    r.series,
    String(r.n),
    r.medianMs.toFixed(4),
    r.p99Ms.toFixed(4),
    r.throughput.toFixed(0),
    r.vsBaseline,
    r.notes,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i] ?? 0)).join(' │ ');
  return [line(header), widths.map((w) => '─'.repeat(w)).join('─┼─'), ...cells.map(line)].join('\n');
}

/** Runs `operation` `count` times with at most `concurrency` in flight, timing each. */
export async function timeSeries(
  label: string,
  count: number,
  concurrency: number,
  operation: (i: number) => Promise<unknown> | unknown,
): Promise<Measurement> {
  const samplesMs: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const t0 = performance.now();
      await operation(i);
      samplesMs.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { label, samplesMs, wallMs: performance.now() - started };
}
