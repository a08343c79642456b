import { IngestionGate } from './ingestion-gate';

/** Tracks a promise so a test can tell whether it has settled yet. */
function track<T>(promise: Promise<T>): { settled: boolean; value: T | undefined } {
  const state: { settled: boolean; value: T | undefined } = { settled: false, value: undefined };
  void promise.then((value) => {
    state.settled = true;
    state.value = value;
  });
  return state;
}

/** Lets settled promises run their callbacks without moving the fake clock. */
const flushPromises = () => jest.advanceTimersByTimeAsync(0);

describe('IngestionGate', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  describe('given a new gate', () => {
    it('when asked, then it is closed because ingestion is starting', () => {
      const gate = new IngestionGate();

      expect(gate.open).toBe(false);
      expect(gate.closedReason).toBe('ingestion is starting');
    });

    it('when waiting, then the wait lasts the whole timeout and answers false', async () => {
      const gate = new IngestionGate();

      const wait = track(gate.whenOpen(1000));
      await jest.advanceTimersByTimeAsync(999);
      expect(wait.settled).toBe(false);
      await jest.advanceTimersByTimeAsync(1);

      expect(wait).toEqual({ settled: true, value: false });
      expect(jest.getTimerCount()).toBe(0);
    });

    it('when waiting with no time at all, then the answer is false', async () => {
      const gate = new IngestionGate();

      const wait = track(gate.whenOpen(0));
      await jest.advanceTimersByTimeAsync(0);

      expect(wait).toEqual({ settled: true, value: false });
    });
  });

  describe('given an open gate', () => {
    it('when waiting, then the answer is true at once, without a timer', async () => {
      const gate = new IngestionGate();
      gate.openNow();

      await expect(gate.whenOpen(60_000)).resolves.toBe(true);
      expect(jest.getTimerCount()).toBe(0);
    });

    it('when closed with a reason, then it is closed and tells why', () => {
      const gate = new IngestionGate();
      gate.openNow();

      gate.close('leader changed');

      expect(gate.open).toBe(false);
      expect(gate.closedReason).toBe('leader changed');
    });

    it('when closed again, then a new wait times out with false', async () => {
      const gate = new IngestionGate();
      gate.openNow();
      gate.close('catching up');

      const wait = track(gate.whenOpen(50));
      await jest.advanceTimersByTimeAsync(50);

      expect(wait).toEqual({ settled: true, value: false });
    });
  });

  describe('given callers waiting on a closed gate', () => {
    it('when it opens before their timeout, then every one of them is woken with true at once', async () => {
      const gate = new IngestionGate();
      const first = track(gate.whenOpen(5000));
      const second = track(gate.whenOpen(100));
      await jest.advanceTimersByTimeAsync(50);

      gate.openNow();
      await flushPromises();

      expect(first).toEqual({ settled: true, value: true });
      expect(second).toEqual({ settled: true, value: true });
      expect(gate.open).toBe(true);
      // Their timers are cleared rather than left to fire later.
      expect(jest.getTimerCount()).toBe(0);
    });

    it('when it is closed again while they wait, then they keep waiting and are still woken by the opening', async () => {
      const gate = new IngestionGate();
      const wait = track(gate.whenOpen(1000));

      gate.close('leader changed');
      await jest.advanceTimersByTimeAsync(500);
      expect(wait.settled).toBe(false);
      gate.openNow();
      await flushPromises();

      expect(wait).toEqual({ settled: true, value: true });
    });

    it('when one has timed out and the gate opens later, then the later waiters still get true and the timed-out one keeps false', async () => {
      const gate = new IngestionGate();
      const early = track(gate.whenOpen(10));
      const late = track(gate.whenOpen(1000));
      await jest.advanceTimersByTimeAsync(10);

      gate.openNow();
      await flushPromises();

      expect(early).toEqual({ settled: true, value: false });
      expect(late).toEqual({ settled: true, value: true });
    });

    it('when the gate opens, then a waiter added afterwards does not wait', async () => {
      const gate = new IngestionGate();
      void gate.whenOpen(1000);
      gate.openNow();

      const after = track(gate.whenOpen(1000));
      await flushPromises();

      expect(after).toEqual({ settled: true, value: true });
    });
  });
});
