/**
 * Runs tasks one after another per key and concurrently across keys. Listings ingestion keys work
 * by grouping bucket, so two adverts of one good never race to found two properties; the searches
 * service keys creations by account, so concurrent ones cannot overrun the account's limit.
 */
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
