/** Holds the thread for `ms`: stands for synchronous work of a known cost (encoding, a publish call). */
export function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Spinning on purpose.
  }
}

/**
 * Numbers the event loop's turns with a chain of immediates, so work can note the turn each of
 * its items ran in. Counting items per turn, rather than timing the gaps between turns, keeps a
 * slicing test exact on a loaded machine: a process descheduled mid-slice only ends that slice
 * sooner (fewer items in it), whereas the same pause stretches a measured gap.
 */
export class LoopTurns {
  private turn = 0;
  private running = true;

  constructor() {
    const tick = () => {
      this.turn += 1;
      if (this.running) setImmediate(tick);
    };
    setImmediate(tick);
  }

  /** The turn the caller is running in. */
  get current(): number {
    return this.turn;
  }

  stop(): void {
    this.running = false;
  }
}

/** The most items noted in any one turn: `turns` holds the turn each item ran in, in order. */
export function mostItemsInOneTurn(turns: readonly number[]): number {
  let most = 0;
  let run = 0;
  turns.forEach((turn, i) => {
    run = i > 0 && turns[i - 1] === turn ? run + 1 : 1;
    most = Math.max(most, run);
  });
  return most;
}
