import { collectDefaultMetrics, Counter, Gauge, Registry, type LabelValues } from 'prom-client';

/** What `/metrics` answers with (Prometheus text format 0.0.4). */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** Resolution of the event-loop delay histogram behind `nodejs_eventloop_lag_*`, in milliseconds. */
const EVENT_LOOP_MONITORING_PRECISION_MS = 10;

let registry: Registry | null = null;

/**
 * The one registry of this process, served on `/metrics` (the gateway's port, a service's health
 * port): the default process metrics (CPU, memory and heap, event-loop delay, handles, GC) plus
 * whatever the process registers.
 */
export function metricsRegistry(): Registry {
  if (registry === null) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_MONITORING_PRECISION_MS });
  }
  return registry;
}

/** The metrics in the text exposition format. */
export function metricsText(): Promise<string> {
  return metricsRegistry().metrics();
}

/** One value of a labelled metric. */
export interface Sample<L extends string> {
  labels: LabelValues<L>;
  value: number;
}

type Reading<L extends string> = number | null | Iterable<Sample<L>>;

export interface CollectedMetricDefinition<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  /**
   * Called at each scrape: a number (a metric without labels), one sample per label set, or null
   * for "nothing to report". When it fails, the scrape still succeeds with the values last read.
   */
  read(): Reading<L> | Promise<Reading<L>>;
}

/**
 * A gauge read from where the number already lives, at scrape time: nothing is updated on the
 * paths that change it. Label sets not read again disappear (a host no longer seen, say).
 */
export function collectedGauge<L extends string = string>(definition: CollectedMetricDefinition<L>): Gauge<L> {
  return replacing(definition.name, (registers) => {
    const gauge: Gauge<L> = new Gauge<L>({
      name: definition.name,
      help: definition.help,
      labelNames: definition.labelNames ?? [],
      registers,
      collect: async () => fill(gauge, definition, (labels, value) => gauge.set(labels, value)),
    });
    return gauge;
  });
}

/**
 * A counter that mirrors a count kept elsewhere (`counters` of the matcher, the dispatcher…),
 * read at scrape time. The count must only grow during the life of the process.
 */
export function collectedCounter<L extends string = string>(definition: CollectedMetricDefinition<L>): Counter<L> {
  return replacing(definition.name, (registers) => {
    const counter: Counter<L> = new Counter<L>({
      name: definition.name,
      help: definition.help,
      labelNames: definition.labelNames ?? [],
      registers,
      collect: async () => fill(counter, definition, (labels, value) => counter.inc(labels, value)),
    });
    return counter;
  });
}

/**
 * Registers a metric under its name, in place of one registered earlier under that name: a module
 * set up again in the same process (tests) reports its new objects instead of failing.
 */
export function replacing<M>(name: string, create: (registers: Registry[]) => M): M {
  const target = metricsRegistry();
  target.removeSingleMetric(name);
  return create([target]);
}

async function fill<L extends string>(
  metric: { reset(): void },
  definition: CollectedMetricDefinition<L>,
  put: (labels: LabelValues<L>, value: number) => void,
): Promise<void> {
  let reading: Reading<L>;
  try {
    reading = await definition.read();
  } catch {
    return;
  }
  metric.reset();
  if (reading === null) return;
  if (typeof reading === 'number') {
    if (Number.isFinite(reading)) put({}, reading);
    return;
  }
  for (const sample of reading) if (Number.isFinite(sample.value)) put(sample.labels, sample.value);
}
