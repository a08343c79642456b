import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { withTemporaryStack } from './stack';
import { ROOT } from './stack-fixture';

/** What a run writes to stderr, captured while `run` goes on. */
async function stderrOf(run: () => Promise<unknown>): Promise<{ lines: string[]; error: unknown }> {
  const lines: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await run();
    return { lines, error: null };
  } catch (error) {
    return { lines, error };
  } finally {
    spy.mockRestore();
  }
}

describe('withTemporaryStack (benchmarks)', () => {
  jest.setTimeout(120_000);

  it('keeps the logs of a failed run outside its data directory, and says where; a run that succeeds leaves nothing, and its services answer their metrics', async () => {
    let dataDir = '';
    const failed = await stderrOf(() =>
      withTemporaryStack(ROOT, async (stack) => {
        dataDir = stack.dataDir;
        throw new Error('the scenario failed');
      }),
    );
    expect(failed.error).toEqual(new Error('the scenario failed'));
    expect(existsSync(dataDir)).toBe(false);
    const kept = /the stack's logs are kept in (\S+)/.exec(failed.lines.join(''))?.[1];
    expect(kept).toBeDefined();
    try {
      expect(readdirSync(kept as string)).toEqual(expect.arrayContaining(['listings.log', 'gateway.log', 'nats-server.log']));
      expect(readFileSync(join(kept as string, 'listings.log'), 'utf8')).toMatch(/listings ready/);
    } finally {
      rmSync(kept as string, { recursive: true, force: true });
    }

    let metrics = '';
    const succeeded = await stderrOf(() =>
      withTemporaryStack(ROOT, async (stack) => {
        dataDir = stack.dataDir;
        // A benchmark reads a service's own figures there (listings-scale: each phase's worst event-loop delay).
        metrics = await (await fetch(`${stack.healthUrl('listings')}/metrics`)).text();
      }),
    );
    expect(succeeded.error).toBeNull();
    expect(metrics).toMatch(/^nodejs_eventloop_lag_max_seconds \S+$/m);
    expect(existsSync(dataDir)).toBe(false);
    expect(succeeded.lines.join('')).not.toMatch(/logs are kept/);
  });
});
