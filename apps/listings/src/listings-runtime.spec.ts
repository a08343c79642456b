import { ListingsRuntime } from './listings-runtime';

/** A runtime over stand-ins: a log whose head is at `head`, a projection that reaches it when told. */
function runtimeAtHead(head: number | null = 5) {
  let reachHead: () => void = () => undefined;
  const caughtUp = new Promise<void>((resolve) => (reachHead = resolve));
  const idle = { start: () => undefined, stop: async () => undefined };
  const runner = { start: async () => undefined, stop: async () => undefined, saveSnapshot: async () => undefined, waitFor: () => caughtUp, failed: null, checkpoint: null };
  const runtime = new ListingsRuntime(
    { headPosition: async () => head } as never,
    runner as never,
    idle as never,
    {} as never,
    {} as never,
    {} as never,
    {} as never,
    { ...idle, held: false } as never,
    true,
    { subscribe: () => ({ unsubscribe: () => undefined }), publish: () => undefined } as never,
  );
  return { runtime, reachHead };
}

describe('ListingsRuntime vitals', () => {
  it('measures the event loop from when the service answers and its projection caught up, not during start-up', async () => {
    const { runtime, reachHead } = runtimeAtHead();
    const reset = jest.spyOn(runtime.vitals, 'reset');
    await runtime.start();
    reachHead();
    await new Promise((resolve) => setImmediate(resolve));
    expect(reset).not.toHaveBeenCalled();

    runtime.serving();
    await new Promise((resolve) => setImmediate(resolve));
    expect(reset).toHaveBeenCalledTimes(1);
    await runtime.stop();
  });

  it('waits for the projection to reach the head seen at start when serving begins first', async () => {
    const { runtime, reachHead } = runtimeAtHead();
    const reset = jest.spyOn(runtime.vitals, 'reset');
    await runtime.start();
    runtime.serving();
    await new Promise((resolve) => setImmediate(resolve));
    expect(reset).not.toHaveBeenCalled();
    reachHead();
    await new Promise((resolve) => setImmediate(resolve));
    expect(reset).toHaveBeenCalledTimes(1);
    await runtime.stop();
  });

  it('measures from when the service answers when the log was empty at start', async () => {
    const { runtime } = runtimeAtHead(null);
    const reset = jest.spyOn(runtime.vitals, 'reset');
    await runtime.start();
    expect(reset).not.toHaveBeenCalled();
    runtime.serving();
    await new Promise((resolve) => setImmediate(resolve));
    expect(reset).toHaveBeenCalledTimes(1);
    await runtime.stop();
  });
});
