/** Resolves once `condition()` holds, checking every `pollMs`; throws when it has not within `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 5_000, pollMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
