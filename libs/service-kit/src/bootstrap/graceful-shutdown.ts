import { Logger } from '@nestjs/common';

/**
 * Set once a stop signal arrived: readiness answers 503 from then on, so a load balancer stops
 * sending work while what is under way finishes.
 */
export const shutdownState = { draining: false };

/**
 * On SIGTERM (or SIGINT): readiness goes 503, then `stop` runs — stop taking work, finish what is
 * under way, flush and close the stores — and the process exits 0. If `stop` takes longer than
 * `timeoutMs` (SHUTDOWN_TIMEOUT_MS), the process exits 1 anyway: an orchestrator's grace period
 * must not be overrun.
 */
export function installGracefulShutdown(name: string, timeoutMs: number, stop: (signal: NodeJS.Signals) => Promise<void>): void {
  let started = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (started) return;
    started = true;
    shutdownState.draining = true;
    const logger = new Logger(name);
    logger.log(`${signal}: stopping (at most ${timeoutMs} ms)`);
    const deadline = setTimeout(() => {
      logger.error(`still stopping after ${timeoutMs} ms; exiting`);
      process.exit(1);
    }, timeoutMs);
    deadline.unref();
    stop(signal).then(
      () => {
        clearTimeout(deadline);
        logger.log('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error(`stopping failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
