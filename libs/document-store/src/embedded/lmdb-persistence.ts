/**
 * Durable side of the embedded store: one LMDB environment per data directory, two databases per
 * collection (full documents, and the skeletons that are reloaded into memory at start) and a
 * meta database naming the skeleton paths each collection was stored with.
 *
 * Why LMDB (the `lmdb` package): it is a transactional, crash-safe B+tree whose Linux binary ships
 * as an npm package (nothing is compiled or fetched at install); a transaction spans all databases
 * of the environment, so a projection's documents and its checkpoint commit together; reads are
 * synchronous from a memory map (no JS heap for documents at rest), and writes are encoded on the
 * main thread but committed and synced off it. The package's 2.x line, not 3.x: see store-format.ts.
 */
// First: it switches msgpackr's native string extraction off before lmdb loads msgpackr.
import './plain-string-decoding';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase, type RootDatabaseOptionsWithPath } from 'lmdb';
import { Packr } from 'msgpackr';
import type { YieldToEventLoop } from '@immo/runtime';
import type { StoredDocument } from '../document-store.port';
import { compressionOption, dictionaryFrom } from './compression-dictionary';
import { fileFormatOf, markStoreFormat, unusableFormatReason } from './store-format';
import { internedSkeleton, type Skeleton } from './skeleton';
import { newSkeletonMap } from './skeleton-table';

export interface PersistOp {
  collection: string;
  id: string;
  /** The new document, or null to delete it. */
  doc: StoredDocument | null;
  skeleton: Skeleton | null;
  /** The collection's documents are plain JSON data: the body is stored as JSON text (see `encodeBody`). */
  plainJson?: boolean;
}

interface CollectionMeta {
  paths: string[];
  /** The dictionary its bodies are compressed with; absent for collections stored before dictionaries. */
  dictionary?: Uint8Array;
}

export const LMDB_FILE_NAME = 'documents.mdb';

/**
 * Address space reserved for the map up front (virtual only: the file grows with the data). When
 * lmdb grows a small map instead, the pages read through the old maps stay resident beside the new
 * one: measured, a 788 MiB store read at random held 1.1 GiB of file-backed RSS, against 0.6 GiB
 * with the map reserved once.
 */
const MAP_SIZE_BYTES = 2 ** 36;

/** Two databases per collection plus the meta one and the format mark's: room for 100 collections (lmdb's default is 12). */
const MAX_DATABASES = 202;

/*
 * Document bodies are stored LZ4-compressed by lmdb, each collection with a dictionary of its own
 * first documents (see `compression-dictionary.ts`); bodies written before compression was on
 * stay readable. Every page of the map that is read stays resident in the process, so a smaller
 * file is less resident memory for a large store, and a shorter read at restart.
 */

/**
 * Values are encoded here, with this module's own msgpack encoder, and LMDB stores bytes. lmdb's
 * built-in encoder is shared by every environment of the process, so with several JS realms in
 * one process (Jest runs each test file in its own) it met Dates of another realm and stored
 * them as strings. Plain msgpack maps (no shared record structures) need no structure table in
 * the store, and measured slightly faster to write.
 */
const codec = new Packr({ useRecords: false, moreTypes: false });

/**
 * A document body: msgpack of the document, or for a collection of plain JSON data, msgpack of its
 * JSON text (a msgpack string, told apart on reading: a document is never a string). Measured in
 * the listings service under ingestion, V8's JSON.stringify encoded its documents 2.5 to 3.5 times
 * faster than msgpackr (property documents 24 µs against 85, advert states 8 against 28), whose
 * field-by-field encoding meets objects of many shapes there; reading, JSON.parse of the text took
 * half the time of msgpackr's decoding. Bodies written before stay readable.
 */
function encodeBody(doc: StoredDocument, plainJson: boolean): Buffer {
  return codec.pack(plainJson ? JSON.stringify(doc) : doc);
}

function decodeBody(bytes: Buffer | Uint8Array): StoredDocument {
  const value: unknown = codec.unpack(bytes);
  return (typeof value === 'string' ? JSON.parse(value) : value) as StoredDocument;
}

/**
 * Longest wait for a prefetch: lmdb reports a failed one by logging, without calling back, and a
 * prefetch only makes reads cheaper, so a reader never waits on it for long.
 */
const PREFETCH_WAIT_MS = 1000;

/** A database of msgpack-encoded values (`decode` reads one). */
class EncodedDatabase<V> {
  constructor(
    private readonly db: Database<Buffer, string>,
    private readonly decode: (bytes: Buffer) => V = (bytes) => codec.unpack(bytes) as V,
  ) {}

  get(key: string): V | undefined {
    const bytes = this.db.getBinary(key);
    return bytes === undefined ? undefined : this.decode(bytes);
  }

  *values(): Generator<{ key: string; value: V }> {
    for (const { key, value } of this.db.getRange()) yield { key, value: this.decode(value) };
  }

  count(): number {
    return this.db.getKeysCount();
  }

  /** Faults the entries' pages in on lmdb's reader threads (see `LmdbPersistence.prefetch`). */
  async prefetch(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, PREFETCH_WAIT_MS);
      timer.unref();
    });
    try {
      await Promise.race([this.db.prefetch(keys), gaveUp]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Inside a batch (or transaction) callback: part of its transaction. */
  put(key: string, value: V): void {
    void this.db.put(key, codec.pack(value));
  }

  /** `put` of a value encoded beforehand (`codec.pack` returns a buffer no later call reuses). */
  putEncoded(key: string, bytes: Buffer): void {
    void this.db.put(key, bytes);
  }

  remove(key: string): void {
    void this.db.remove(key);
  }

  clear(): void {
    this.db.clearSync();
  }
}

export class LmdbPersistence {
  private readonly bodies = new Map<string, EncodedDatabase<StoredDocument>>();
  /** Each collection's meta once read or chosen (a new collection's, by its first commit). */
  private readonly metas = new Map<string, CollectionMeta>();
  private readonly skeletons = new Map<string, EncodedDatabase<Skeleton>>();
  private readonly meta: EncodedDatabase<CollectionMeta>;

  /**
   * Where the last commit stands in the queue: a commit is encoded and handed to lmdb after the
   * one before it, so commits reach the file in the order they were made even when their encoding
   * pauses for the event loop.
   */
  private queue: Promise<void> = Promise.resolve();

  private constructor(
    private readonly root: RootDatabase,
    private readonly yieldToEventLoop: YieldToEventLoop,
  ) {
    this.meta = this.database<CollectionMeta>('$meta');
  }

  private database<V>(name: string, compression: ReturnType<typeof compressionOption> | false = false, decode?: (bytes: Buffer) => V): EncodedDatabase<V> {
    return new EncodedDatabase<V>(this.root.openDB<Buffer, string>({ name, encoding: 'binary', compression }), decode);
  }

  static open(dataDir: string, yieldToEventLoop: YieldToEventLoop = () => undefined): LmdbPersistence {
    mkdirSync(dataDir, { recursive: true });
    // Document bodies are LZ4-compressed (per database, below), skeletons are not.
    // No read-ahead: documents are read one at a time at random places of the map; the kernel's
    // read-ahead would fault in (and count as resident) neighbouring pages nobody asked for.
    // (`noReadAhead` is read by lmdb's open() but missing from its type declarations.)
    const path = join(dataDir, LMDB_FILE_NAME);
    const options: RootDatabaseOptionsWithPath & { noReadAhead: boolean } = {
      path,
      mapSize: MAP_SIZE_BYTES,
      maxDbs: MAX_DATABASES,
      noReadAhead: true,
    };
    const root = open(options);
    const format = fileFormatOf(root);
    const unusable = unusableFormatReason(path, format);
    if (unusable !== null) {
      void root.close();
      throw new Error(unusable);
    }
    if (format.format === null) markStoreFormat(root);
    return new LmdbPersistence(root, yieldToEventLoop);
  }

  /** A fresh copy of the stored document (decoding is the copy). */
  read(collection: string, id: string): StoredDocument | undefined {
    return this.bodiesOf(collection).get(id);
  }

  /**
   * Makes the next reads of these documents cheap: their pages are faulted in on lmdb's reader
   * threads instead of by a read on the event loop. The map is read without read-ahead and its
   * pages leave the page cache under memory pressure, so a read of a document not read for a
   * while waits for the disk; at 267,000 properties such waits were a fifth of the listings
   * service's busy time during ingestion. Unknown ids cost nothing.
   */
  prefetch(collection: string, ids: string[]): Promise<void> {
    return this.bodiesOf(collection).prefetch(ids);
  }

  /**
   * The stored skeletons of a collection, or null when they were stored with other paths (new
   * index declarations): the caller then rebuilds them from the documents.
   */
  loadSkeletons(collection: string, paths: readonly string[]): Map<string, Skeleton> | null {
    const meta = this.metaOf(collection);
    const db = this.skeletonsOf(collection);
    const loaded = newSkeletonMap();
    if (meta === undefined) {
      // Never stored: an empty collection needs nothing rebuilt (its first commit records the paths).
      return this.bodiesOf(collection).count() === 0 ? loaded : null;
    }
    if (!samePaths(meta.paths, paths)) return null;
    // Interned like the skeletons written later (see `skeletonOf`): one string per id across
    // collections. A skeleton is stored under its own id, so that id is the key.
    for (const { value } of db.values()) {
      const skeleton = internedSkeleton(value);
      loaded.set(skeleton._id, skeleton);
    }
    return loaded;
  }

  /** Every stored document of a collection, decoded one at a time. */
  *documents(collection: string): Generator<StoredDocument> {
    for (const { value } of this.bodiesOf(collection).values()) yield value;
  }

  /** Replaces the stored skeletons of a collection (after their paths changed). */
  async storeSkeletons(collection: string, paths: readonly string[], skeletons: ReadonlyMap<string, Skeleton>): Promise<void> {
    const db = this.skeletonsOf(collection);
    // The dictionary stays: the bodies compressed with it are still there.
    const meta: CollectionMeta = { ...this.metaOf(collection), paths: [...paths] };
    await this.root.transaction(() => {
      db.clear();
      for (const [id, skeleton] of skeletons) db.put(id, skeleton);
      this.meta.put(collection, meta);
    });
    this.metas.set(collection, meta);
  }

  /**
   * Writes every operation in one transaction: all of them survive a crash, or none. A batch, not
   * a transaction callback: the callback only queues the encoded values, and lmdb's write thread
   * runs the B-tree work (page allocation, splits, faults on pages not yet in memory) and the
   * compression. In a transaction callback those ran on the event loop, and at 40,000 properties
   * a single commit held it for 75 to 116 ms. The encoding itself pauses for the event loop every
   * few documents: a commit of a thousand adverts' changes encodes about 18 MB, 30 to 60 ms.
   */
  async persist(ops: readonly PersistOp[], pathsOf: (collection: string) => readonly string[]): Promise<void> {
    if (ops.length === 0) return;
    // Queued behind the commit before, which is then handed to lmdb already (`queued` is settled
    // once this batch is queued in lmdb, not once it is written): lmdb writes batches in order.
    const queued = this.queue.then(async () => ({ written: this.write(ops, await this.encode(ops), pathsOf) }));
    this.queue = queued.then(
      () => undefined,
      () => undefined,
    );
    const { written } = await queued;
    await written;
  }

  /** Each operation's encoded body and skeleton (null for a delete), a slice at a time. */
  private async encode(ops: readonly PersistOp[]): Promise<({ body: Buffer; skeleton: Buffer } | null)[]> {
    const encoded: ({ body: Buffer; skeleton: Buffer } | null)[] = [];
    for (const [i, op] of ops.entries()) {
      // Asked after each document, so a turn is bounded by time: a document's encoding takes 10 to
      // 50 µs, and up to 15 ms more when the collector runs a marking step inside it.
      if (i > 0) {
        const due = this.yieldToEventLoop();
        if (due) await due;
      }
      // Everything that can throw runs before the batch: a batch whose callback throws still
      // commits what it queued so far, where a transaction would have rolled back.
      assertKeySize(op.id);
      encoded.push(op.doc === null ? null : { body: encodeBody(op.doc, op.plainJson === true), skeleton: codec.pack(op.skeleton as Skeleton) });
    }
    return encoded;
  }

  private write(ops: readonly PersistOp[], encoded: readonly ({ body: Buffer; skeleton: Buffer } | null)[], pathsOf: (collection: string) => readonly string[]): Promise<boolean> {
    // Commits reach here one at a time, in order: the first commit of a collection chooses its
    // meta (and dictionary), and the batch that writes its first bodies writes that meta too.
    const newMetas = this.chooseNewMetas(ops, encoded, pathsOf);
    const written = this.root.batch(() => {
      for (const [collection, meta] of newMetas) this.meta.put(collection, meta);
      ops.forEach((op, i) => {
        const bodies = this.bodiesOf(op.collection);
        const skeletons = this.skeletonsOf(op.collection);
        const values = encoded[i];
        if (values === null || values === undefined) {
          bodies.remove(op.id);
          skeletons.remove(op.id);
        } else {
          bodies.putEncoded(op.id, values.body);
          skeletons.putEncoded(op.id, values.skeleton);
        }
      });
    });
    // A meta that did not reach the file is chosen again by the next commit, so that no body is
    // ever stored compressed with a dictionary the file does not hold.
    written.catch(() => {
      for (const collection of newMetas.keys()) {
        this.metas.delete(collection);
        this.bodies.delete(collection);
      }
    });
    return written;
  }

  /**
   * The meta of each collection this commit writes its first bodies to, its dictionary made of
   * those bodies; the collection's bodies are compressed with it from this commit on. (A commit
   * that only deletes leaves the choice to the next one.)
   */
  private chooseNewMetas(ops: readonly PersistOp[], encoded: readonly ({ body: Buffer } | null)[], pathsOf: (collection: string) => readonly string[]): Map<string, CollectionMeta> {
    const firstBodies = new Map<string, Buffer[]>();
    ops.forEach((op, i) => {
      if (this.metaOf(op.collection) !== undefined) return;
      const bodies = firstBodies.get(op.collection) ?? [];
      const body = encoded[i]?.body;
      if (body !== undefined) bodies.push(body);
      firstBodies.set(op.collection, bodies);
    });
    const chosen = new Map<string, CollectionMeta>();
    for (const [collection, bodies] of firstBodies) {
      const dictionary = dictionaryFrom(bodies);
      if (dictionary === null) continue;
      const meta: CollectionMeta = { paths: [...pathsOf(collection)], dictionary };
      this.metas.set(collection, meta);
      this.bodies.set(collection, this.database(collection, compressionOption(dictionary), decodeBody));
      chosen.set(collection, meta);
    }
    return chosen;
  }

  private metaOf(collection: string): CollectionMeta | undefined {
    let meta = this.metas.get(collection);
    if (meta === undefined) {
      meta = this.meta.get(collection);
      if (meta !== undefined) this.metas.set(collection, meta);
    }
    return meta;
  }

  /** Resolves once every committed transaction is synced to disk. */
  async flush(): Promise<void> {
    await this.root.flushed;
  }

  async close(): Promise<void> {
    await this.root.close();
  }

  private bodiesOf(collection: string): EncodedDatabase<StoredDocument> {
    let db = this.bodies.get(collection);
    if (!db) {
      db = this.database(collection, compressionOption(this.metaOf(collection)?.dictionary), decodeBody);
      this.bodies.set(collection, db);
    }
    return db;
  }

  private skeletonsOf(collection: string): EncodedDatabase<Skeleton> {
    let db = this.skeletons.get(collection);
    if (!db) {
      db = this.database<Skeleton>(`${collection}$skeletons`);
      this.skeletons.set(collection, db);
    }
    return db;
  }
}

/** lmdb's largest key with its default 4 KiB pages (`maxKeySize`). */
const MAX_KEY_BYTES = 1978;

function assertKeySize(id: string): void {
  const bytes = Buffer.byteLength(id, 'utf8');
  if (bytes > MAX_KEY_BYTES) throw new RangeError(`An _id of ${bytes} bytes is over the embedded store's limit of ${MAX_KEY_BYTES} bytes`);
}

function samePaths(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((path, i) => path === b[i]);
}
