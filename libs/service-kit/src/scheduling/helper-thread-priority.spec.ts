import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import { resolve } from 'node:path';
import { HelperThreadPriority, type ThreadDirectory } from './helper-thread-priority';

/** A process's threads as a test says they are; records every nice value set. */
class FakeThreads implements ThreadDirectory {
  readonly nice = new Map<number, number>();
  constructor(
    public ids: number[] | null,
    mainNice = 0,
  ) {
    this.nice.set(1, mainNice);
  }
  threadIds() {
    return this.ids;
  }
  niceOf(id: number) {
    return this.nice.get(id) ?? 0;
  }
  setNice(id: number, nice: number) {
    if (!this.ids?.includes(id)) throw new Error(`no thread ${id}`);
    this.nice.set(id, nice);
  }
}

describe('HelperThreadPriority', () => {
  it('lowers every thread but the main one, by the increment over the main thread', () => {
    const threads = new FakeThreads([1, 7, 8, 9], 2);
    expect(new HelperThreadPriority(5, 1, threads).apply()).toBe(3);
    expect(Object.fromEntries(threads.nice)).toEqual({ 1: 2, 7: 7, 8: 7, 9: 7 });
  });

  it('lowers threads started later, once each, including a new thread under an ended one’s id', () => {
    const threads = new FakeThreads([1, 7]);
    const priority = new HelperThreadPriority(5, 1, threads);
    priority.apply();
    threads.ids = [1, 7, 12];
    expect(priority.apply()).toBe(1);
    expect(threads.nice.get(12)).toBe(5);
    // Thread 7 ends; a new one is given its id and starts at its creator's priority.
    threads.ids = [1, 12];
    priority.apply();
    threads.ids = [1, 7, 12];
    threads.nice.set(7, 0);
    expect(priority.apply()).toBe(1);
    expect(threads.nice.get(7)).toBe(5);
  });

  it('never goes past the least priority, and does nothing with an increment of 0 or without a thread list', () => {
    const low = new FakeThreads([1, 7], 17);
    new HelperThreadPriority(5, 1, low).apply();
    expect(low.nice.get(7)).toBe(19);
    const off = new FakeThreads([1, 7]);
    expect(new HelperThreadPriority(0, 1, off).apply()).toBe(0);
    expect(off.nice.has(7)).toBe(false);
    expect(new HelperThreadPriority(5, 1, new FakeThreads(null)).apply()).toBe(0);
  });

  it('counts a thread that ended between the listing and the change as nothing to lower', () => {
    const threads = new FakeThreads([1, 7, 8]);
    threads.setNice = (id, nice) => {
      if (id === 8) throw new Error('ESRCH');
      threads.nice.set(id, nice);
    };
    expect(new HelperThreadPriority(5, 1, threads).apply()).toBe(1);
  });

  const linux = existsSync('/proc/self/task');
  (linux ? it : it.skip)('lowers the helper threads of a real process and leaves its main thread as it was (Linux /proc)', async () => {
    const built = resolve(__dirname, '..', '..', '..', '..', 'dist', 'libs', 'service-kit', 'src', 'scheduling', 'helper-thread-priority.js');
    expect(existsSync(built)).toBe(true);
    // A process of its own: the nice values set must not slow the test runner's own threads.
    const script = `
      const { readdirSync, readFileSync } = require('node:fs');
      const { HelperThreadPriority } = require(${JSON.stringify(built)});
      // libuv's pool starts on first use: make it start, so there are threads of both kinds.
      require('node:crypto').pbkdf2(Buffer.from('x'), Buffer.from('y'), 1, 8, 'sha256', () => {
        new HelperThreadPriority(5).apply();
        const nice = (tid) => Number(readFileSync('/proc/self/task/' + tid + '/stat', 'utf8').split(') ')[1].split(' ')[16]);
        const tids = readdirSync('/proc/self/task').map(Number);
        process.stdout.write(JSON.stringify({ main: nice(process.pid), helpers: tids.filter((t) => t !== process.pid).map(nice) }));
      });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((done) => child.once('exit', done));
    const { main, helpers } = JSON.parse(out) as { main: number; helpers: number[] };
    // The child starts at the runner's own nice value, whatever it is.
    expect(main).toBe(getPriority(process.pid));
    expect(helpers.length).toBeGreaterThanOrEqual(4);
    expect(helpers).toEqual(helpers.map(() => Math.min(19, main + 5)));
  });
});
