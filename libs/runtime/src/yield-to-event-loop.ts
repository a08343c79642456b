/**
 * Asked by a store between pieces of long synchronous work (after each document a commit encodes,
 * after a stream-head look-up before its append is published): undefined to go on, or a promise to
 * wait for before going on, so that the process's event loop gets its turn. Services pass their
 * shared time slice (service-kit's `eventLoopSlice`); a store used alone never waits.
 */
export type YieldToEventLoop = () => Promise<void> | undefined;
