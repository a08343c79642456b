import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { ProjectionStatusReply } from '@immo/contracts';

/**
 * Memory and event-loop delay of this process, for the admin status (and the scale benchmark):
 * a stalled event loop delays every request the service answers, so its worst delay is tracked.
 */
export class ProcessVitals {
  private readonly delay: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });

  constructor() {
    this.delay.enable();
  }

  /** Forgets the delays so far (called once start-up loading is over). */
  reset(): void {
    this.delay.reset();
  }

  read(): ProjectionStatusReply['process'] {
    const memory = process.memoryUsage();
    const ms = (nanoseconds: number) => Math.round(nanoseconds / 1e4) / 100;
    return {
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      heapTotalBytes: memory.heapTotal,
      externalBytes: memory.external,
      eventLoopDelayMaxMs: ms(this.delay.max),
      eventLoopDelayP99Ms: ms(this.delay.percentile(99)),
    };
  }
}
