/** Holds the thread for `ms`: stands for synchronous work of a known cost (encoding, a publish call). */
export function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Spinning on purpose.
  }
}

/** The longest the event loop went without a turn while `work` ran, measured by a chain of immediates. */
export async function longestTurnGapWhile(work: () => Promise<unknown>): Promise<number> {
  let longest = 0;
  let last = performance.now();
  let running = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    await work();
  } finally {
    running = false;
  }
  return longest;
}
