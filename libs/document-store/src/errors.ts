/** A write would give two documents the same key on a unique index. */
export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';
  constructor(
    readonly collection: string,
    /** Index name in MongoDB's default form, e.g. `reference_1`. */
    readonly index: string,
    readonly key: unknown,
    /** `_id` of the document that was being written, when known. */
    readonly documentId?: string,
  ) {
    super(
      `Duplicate key on unique index ${index} of collection "${collection}"` +
        (documentId === undefined ? '' : ` while writing "${documentId}"`) +
        `: ${safeStringify(key)}`,
    );
  }
}

/** The store was closed; the caller holds on to it past shutdown. */
export class DocumentStoreClosedError extends Error {
  override readonly name = 'DocumentStoreClosedError';
  constructor() {
    super('The document store is closed');
  }
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A commit could not be made durable (disk full, I/O error). What the process holds in memory
 * may now be ahead of the disk, so the store refuses further work; a restart reloads what was
 * stored and the callers' replay (projections resume from their stored checkpoint) redoes the rest.
 */
export class DocumentStoreFailedError extends Error {
  override readonly name = 'DocumentStoreFailedError';
  constructor(readonly reason: unknown) {
    super(`The document store failed to persist a commit and must be reopened: ${String(reason)}`);
  }
}

/**
 * A commit's precondition did not hold (another writer committed first): nothing of it was
 * written. The caller reads what is stored now and decides again.
 */
export class CommitConflictError extends Error {
  override readonly name = 'CommitConflictError';
  constructor(
    readonly collection: string,
    readonly documentId: string,
    readonly expected: number | null,
    readonly found: number | null,
  ) {
    super(`Commit refused: "${documentId}" of "${collection}" is at revision ${found ?? 'none'}, not ${expected ?? 'none'}`);
  }
}
