/**
 * One circuit breaker per receiving host, so a receiver that is down costs each delivery a quick
 * refusal instead of a connection timeout, and does not slow the deliveries to every other host.
 * Only the receiver being unwell counts against it (no answer, or 5xx); a 4xx is its answer.
 * A refused call is not an attempt: the caller defers the delivery without spending a retry.
 */
import { EventEmitter } from 'node:events';
import CircuitBreaker from 'opossum';
import type { PostOutcome } from './guarded-https-client';

export interface EndpointBreakersOptions {
  /** Opens when more than this share of the calls in the window failed. Default 50. */
  errorThresholdPercentage?: number;
  /** How long an open breaker refuses before letting one trial call through. Default 30 s. */
  resetTimeoutMs?: number;
  /** Calls needed in the window before the breaker may open. Default 5. */
  volumeThreshold?: number;
  /** The window failures are counted over. Default 10 s. */
  rollingCountTimeoutMs?: number;
  /**
   * Which outcomes say the host is unwell. Default: no answer, or HTTP 5xx. SMTP servers give a
   * 5xx for one message they refuse (an unknown mailbox): their breakers count only no answer
   * and 421 (service not available).
   */
  isUnwell?: (outcome: Outcome) => boolean;
}

/** What a call's outcome must say for the breaker: the host's status code, or none. */
export interface Outcome {
  statusCode: number | null;
  error: string | null;
}

export type BreakerState = 'closed' | 'open' | 'halfOpen';
export type BreakerRun<O extends Outcome = PostOutcome> = { refused: true } | { refused: false; outcome: O };
type Attempt<O extends Outcome> = () => Promise<O>;

const ROLLING_COUNT_BUCKETS = 10;

/** The receiver did not answer, or answered that it is unwell. */
const httpUnwell = (outcome: Outcome) => outcome.statusCode === null || outcome.statusCode >= 500;

/** Carries an unwell outcome through opossum, which counts only rejections as failures. */
class UnwellOutcome<O extends Outcome> extends Error {
  constructor(readonly outcome: O) {
    super(outcome.error ?? `status ${outcome.statusCode}`);
  }
}

export class EndpointBreakers<O extends Outcome = PostOutcome> {
  private readonly breakers = new Map<string, CircuitBreaker<[Attempt<O>], O>>();
  private readonly options: Required<EndpointBreakersOptions>;
  // One timer turns every breaker's window, instead of two intervals per host seen.
  private readonly rotation = new EventEmitter().setMaxListeners(0);
  private rotationTimer: NodeJS.Timeout | null = null;
  private shutDown = false;

  constructor(options: EndpointBreakersOptions = {}) {
    this.options = {
      errorThresholdPercentage: options.errorThresholdPercentage ?? 50,
      resetTimeoutMs: options.resetTimeoutMs ?? 30_000,
      volumeThreshold: options.volumeThreshold ?? 5,
      rollingCountTimeoutMs: options.rollingCountTimeoutMs ?? 10_000,
      isUnwell: options.isUnwell ?? httpUnwell,
    };
  }

  /**
   * Runs `attempt` unless the host's breaker is open (or half-open with its trial call already
   * out), in which case it is not run at all. Rethrows what `attempt` throws, counted as a failure.
   */
  async run(host: string, attempt: Attempt<O>): Promise<BreakerRun<O>> {
    if (this.shutDown) return { refused: true };
    try {
      return { refused: false, outcome: await this.breakerFor(host).fire(attempt) };
    } catch (error) {
      if (error instanceof UnwellOutcome) return { refused: false, outcome: error.outcome as O };
      // Opossum's own rejections: open, or shut down.
      if (error instanceof Error && CircuitBreaker.isOurError(error)) return { refused: true };
      throw error;
    }
  }

  state(host: string): BreakerState {
    const breaker = this.breakers.get(host.toLowerCase());
    if (!breaker || breaker.closed) return 'closed';
    return breaker.halfOpen ? 'halfOpen' : 'open';
  }

  /** Every host seen and its breaker's state, for metrics. */
  states(): Record<string, BreakerState> {
    return Object.fromEntries([...this.breakers.keys()].map((host) => [host, this.state(host)]));
  }

  /** Stops every timer; calls made afterwards are refused. */
  shutdown(): void {
    this.shutDown = true;
    for (const breaker of this.breakers.values()) breaker.shutdown();
    this.breakers.clear();
    if (this.rotationTimer) clearInterval(this.rotationTimer);
    this.rotationTimer = null;
  }

  private breakerFor(host: string): CircuitBreaker<[Attempt<O>], O> {
    const key = host.toLowerCase();
    const existing = this.breakers.get(key);
    if (existing) return existing;
    const { isUnwell } = this.options;
    const runAttempt = async (attempt: Attempt<O>): Promise<O> => {
      const outcome = await attempt();
      if (isUnwell(outcome)) throw new UnwellOutcome(outcome);
      return outcome;
    };
    const breaker = new CircuitBreaker(runAttempt, {
      name: key,
      // The HTTP client bounds each attempt itself.
      timeout: false,
      errorThresholdPercentage: this.options.errorThresholdPercentage,
      resetTimeout: this.options.resetTimeoutMs,
      volumeThreshold: this.options.volumeThreshold,
      rollingCountTimeout: this.options.rollingCountTimeoutMs,
      rollingCountBuckets: ROLLING_COUNT_BUCKETS,
      rotateBucketController: this.rotation,
      rollingPercentilesEnabled: false,
      enableSnapshots: false,
    });
    this.breakers.set(key, breaker);
    this.startRotation();
    return breaker;
  }

  private startRotation(): void {
    if (this.rotationTimer) return;
    this.rotationTimer = setInterval(() => this.rotation.emit('rotate'), Math.max(1, Math.floor(this.options.rollingCountTimeoutMs / ROLLING_COUNT_BUCKETS)));
    this.rotationTimer.unref();
  }
}
