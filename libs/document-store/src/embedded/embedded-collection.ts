import { Aggregator, Query } from 'mingo';
import type {
  CollectionSpec,
  CommitOutcome,
  DocumentCollection,
  DocumentWrite,
  Filter,
  FindOptions,
  IndexSpec,
  PipelineStage,
  Projection,
  StoredDocument,
  UpsertOutcome,
} from '../document-store.port';
import { isPlainObject, splitPath } from '../document-paths';
import { assertBatchSize, assertStoredDocument } from '../document-validation';
import { DuplicateKeyError } from '../errors';
import { nearestDistance, normalizeGeoFilter } from '../geo/geo-query';
import { indexFields, indexName } from '../index-spec';
import { sortByKeys, sortDocuments } from './bson-order';
import { type CandidatePlan, type IndexLookup, planCandidates } from './candidate-planner';
import type { BodyStore } from './body-store';
import { cloneDocument } from './clone';
import { compileFilter } from './filter-compiler';
import { HashIndex, UniqueIndex } from './hash-index';
import type { PersistOp } from './lmdb-persistence';
import { MINGO_OPTIONS } from './mingo-context';
import { type Skeleton, filterPaths, forgetReplacedStrings, pathsCovered, projectSkeleton, skeletonOf, sortPaths } from './skeleton';
import { type SkeletonTable, skeletonTableFor } from './skeleton-table';

/** Counters that show whether queries were answered from an index or by a full scan. */
export interface QueryStats {
  /** Filter evaluations: find, count, deleteMany, and aggregate with a leading `$match`. */
  queries: number;
  indexedQueries: number;
  fullScans: number;
  /** Documents the filter was evaluated on, summed over all queries. */
  documentsEvaluated: number;
  /** The latest query: the index that narrowed it (null for a full scan) and its evaluations. */
  last: { via: string | null; evaluated: number } | null;
}

/** What a collection needs from the store that owns it. */
export interface CollectionHost {
  assertOpen(): void;
  /** The store's transaction: every write of a collection goes through it. */
  commit(writes: readonly DocumentWrite[], options?: { skipDuplicates?: boolean }): Promise<{ outcomes: CommitOutcome[]; duplicate: DuplicateKeyError | null }>;
  /** Documents of another collection (copies), for `$lookup` and friends. */
  documentsOf(collection: string): StoredDocument[];
}

/** Undoes one in-memory change when a later write of the same commit is refused. */
export type Undo = () => void;

/** Result of applying one write in memory: what to persist, if anything. */
export interface AppliedWrite {
  outcome: CommitOutcome;
  op: PersistOp | null;
}

/** One candidate of a query: its skeleton, and its full document once a filter had to read it. */
interface Candidate<T> {
  skeleton: Skeleton;
  doc: T | null;
}

// Stages that write into collections; the port's aggregate is a read.
const WRITING_STAGES = new Set(['$out', '$merge']);

function stageName(stage: PipelineStage): string {
  const names = Object.keys(stage);
  if (names.length !== 1) throw new Error(`A pipeline stage must have exactly one operator, got ${JSON.stringify(names)}`);
  return names[0] as string;
}

function emptyStats(): QueryStats {
  return { queries: 0, indexedQueries: 0, fullScans: 0, documentsEvaluated: 0, last: null };
}

export class EmbeddedDocumentCollection<T extends StoredDocument = StoredDocument> implements DocumentCollection<T> {
  readonly name: string;
  /** Its documents are plain JSON data (`CollectionSpec.plainJson`), persisted as JSON text. */
  private readonly plainJson: boolean;
  private skeletons: SkeletonTable;
  /** Declared index paths: what skeletons hold, sorted so that stored skeletons can be compared. */
  private paths: string[] = [];
  private readonly hashPaths = new Set<string>();
  /** Hash indexes are built on the first query that can use them, then kept current. */
  private readonly hashIndexes = new Map<string, HashIndex>();
  private readonly uniqueIndexes = new Map<string, UniqueIndex>();
  private readonly geoFields = new Set<string>();
  private stats = emptyStats();
  /** Skeletons for a set of paths: stored ones, or rebuilt from the documents. */
  private readonly reloadSkeletons: (paths: readonly string[]) => Map<string, Skeleton>;

  constructor(
    spec: CollectionSpec,
    private readonly host: CollectionHost,
    private readonly bodies: BodyStore,
    /** Stored skeletons for the declared paths, or a way to rebuild them from the documents. */
    loadSkeletons: (paths: readonly string[]) => Map<string, Skeleton>,
  ) {
    this.name = spec.name;
    this.plainJson = spec.plainJson === true;
    this.paths = pathsOf(spec.indexes);
    this.skeletons = skeletonTableFor(this.paths, loadSkeletons(this.paths));
    this.reloadSkeletons = loadSkeletons;
    this.declareIndexes(spec.indexes);
  }


  /** Paths the skeletons hold (the store persists them beside the skeletons). */
  get skeletonPaths(): readonly string[] {
    return this.paths;
  }

  /**
   * Adds indexes not declared yet. New paths rebuild the skeletons from the documents (once per
   * change of declarations). A unique index the documents already violate is refused, as MongoDB
   * refuses to build it.
   */
  declareIndexes(indexes: readonly IndexSpec[]): void {
    const paths = [...new Set([...this.paths, ...pathsOf(indexes)])].sort();
    if (paths.length !== this.paths.length) {
      this.paths = paths;
      this.skeletons = skeletonTableFor(paths, this.reloadSkeletons(paths));
      this.hashIndexes.clear();
    }
    for (const spec of indexes) {
      const fields = indexFields(spec);
      const [firstPath, firstKind] = fields[0] as [string, 1 | -1 | '2dsphere'];
      if (firstKind === '2dsphere') this.geoFields.add(firstPath);
      else if (firstPath !== '_id') this.hashPaths.add(firstPath);
      const name = indexName(spec);
      const indexPaths = fields.map(([path]) => path);
      if (spec.unique && !this.uniqueIndexes.has(name) && !(indexPaths.length === 1 && indexPaths[0] === '_id')) {
        const unique = new UniqueIndex(name, indexPaths);
        for (const [id, skeleton] of this.skeletons.entries()) {
          const conflict = unique.conflict(id, skeleton);
          if (conflict) throw new DuplicateKeyError(this.name, name, conflict.key, id);
          unique.add(id, skeleton);
        }
        this.uniqueIndexes.set(name, unique);
      }
    }
    // Built now, while the store opens (before a service takes requests), not on the first query
    // that needs them: at 100,000 adverts the first lookup after a restart held the event loop
    // for 200 ms building the index.
    for (const path of this.hashPaths) this.hashIndexOf(path);
  }

  queryStats(): QueryStats {
    return { ...this.stats, last: this.stats.last && { ...this.stats.last } };
  }

  resetQueryStats(): void {
    this.stats = emptyStats();
  }

  /** The stored revision of a document, or null when there is none. */
  revisionOf(id: string): number | null {
    return this.skeletons.get(id)?.revision ?? null;
  }

  /** Number of stored documents. */
  get size(): number {
    return this.skeletons.size;
  }

  async *scan(batchSize: number): AsyncIterable<T[]> {
    assertBatchSize(batchSize);
    this.host.assertOpen();
    // The ids as they are now; a document deleted since is skipped.
    const ids = [...this.skeletons.keys()];
    for (let first = 0; first < ids.length; first += batchSize) {
      const batch: T[] = [];
      for (const id of ids.slice(first, first + batchSize)) {
        const doc = this.bodies.read(id) as T | undefined;
        if (doc !== undefined) batch.push(doc);
      }
      if (batch.length > 0) yield batch;
      this.host.assertOpen();
    }
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    this.host.assertOpen();
    const { filter: normalized, near } = normalizeGeoFilter(filter);
    const skip = options.skip ?? 0;
    if (!Number.isInteger(skip) || skip < 0) throw new RangeError('skip must be a non-negative integer');
    // As in MongoDB, a limit of 0 means no limit.
    const end = options.limit ? skip + Math.abs(options.limit) : undefined;
    const sorted = Boolean(options.sort && Object.keys(options.sort).length > 0);
    const matched = this.select(normalized, sorted || near ? undefined : end);
    // Sort on skeletons when they hold the sort keys, so only the page's documents are read.
    const orderPaths = near ? [near.path] : sortPaths(options.sort);
    const onSkeletons = pathsCovered(orderPaths, this.paths);
    const subjectOf = (candidate: Candidate<T>): StoredDocument => (onSkeletons ? candidate.skeleton : this.documentOf(candidate));
    let ordered: Candidate<T>[] = matched;
    if (options.sort && sorted) {
      const byId = new Map(matched.map((c) => [c.skeleton._id, c]));
      ordered = sortDocuments(matched.map(subjectOf), options.sort, end).map((s) => byId.get(s._id) as Candidate<T>);
    } else if (near) {
      const parts = splitPath(near.path);
      ordered = sortByKeys(matched, (c) => [nearestDistance(subjectOf(c), parts, near.center)], [1], end);
    }
    const projection = options.projection && Object.keys(options.projection).length > 0 ? options.projection : null;
    // A projection that keeps only indexed paths is answered from skeletons, reading no document.
    const fromSkeletons = projection !== null && Object.values(projection).every((v) => v === 1) && pathsCovered(Object.keys(projection), this.paths);
    const slice = ordered.slice(skip, end);
    if (fromSkeletons) {
      // Skeletons are the index itself: hand out copies, never parts of them.
      const paths = Object.keys(projection);
      return slice.map((c) => cloneDocument(projectSkeleton(c.skeleton, paths))) as unknown as T[];
    }
    const page: unknown[] = slice.map((c) => this.documentOf(c));
    return (projection ? project(page, projection) : page) as T[];
  }

  async findById(id: string): Promise<T | null> {
    this.host.assertOpen();
    // Skeletons know every id (staged writes included): an unknown id costs no read. In LMDB a
    // miss still walks the B-tree to a leaf, and at 200,000 properties, with pages not resident,
    // looking up each new property before founding it took a fifth of listings' ingestion time.
    if (!this.skeletons.has(id)) return null;
    return (this.bodies.read(id) as T | undefined) ?? null;
  }

  async prefetch(ids: readonly string[]): Promise<void> {
    this.host.assertOpen();
    await this.bodies.prefetch(ids);
  }

  async count(filter: Filter): Promise<number> {
    this.host.assertOpen();
    if (Object.keys(filter).length === 0) return this.skeletons.size;
    return this.select(normalizeGeoFilter(filter).filter).length;
  }

  async aggregate<R = Record<string, unknown>>(pipeline: PipelineStage[]): Promise<R[]> {
    this.host.assertOpen();
    const stages = pipeline.map((stage) => this.prepareStage(stage));
    const names = stages.map(stageName);
    const writing = names.find((name) => WRITING_STAGES.has(name));
    if (writing) throw new Error(`${writing} is not supported by the embedded document store`);

    // Documents handed to mingo are copies, so even stages that write into their inputs
    // (`$unwind`, `$addFields`) never touch stored documents.
    let source: unknown[];
    let rest = stages;
    const leadingMatch = stages[0]?.['$match'];
    if (isPlainObject(leadingMatch)) {
      source = this.select(leadingMatch).map((c) => this.documentOf(c));
      rest = stages.slice(1);
    } else {
      source = this.allDocuments();
    }
    if (rest.length === 0) return source as R[];
    const resolve = (name: string): Record<string, unknown>[] => this.host.documentsOf(name) as unknown as Record<string, unknown>[];
    const results = new Aggregator(rest, { ...MINGO_OPTIONS, collectionResolver: resolve }).run(source);
    return results as R[];
  }

  /** Normalises geo operators in `$match` and fills `$geoNear.key` from a lone 2dsphere index. */
  private prepareStage(stage: PipelineStage): PipelineStage {
    const name = stageName(stage);
    const value = stage[name];
    if (name === '$match' && isPlainObject(value)) return { $match: normalizeGeoFilter(value).filter };
    if (name === '$geoNear' && isPlainObject(value) && value['key'] === undefined && this.geoFields.size === 1) {
      const [key] = this.geoFields;
      return { $geoNear: { ...value, key } };
    }
    return stage;
  }

  async upsert(doc: T): Promise<UpsertOutcome> {
    this.host.assertOpen();
    assertStoredDocument(doc, this.name);
    const { outcomes } = await this.host.commit([{ collection: this.name, upsert: doc }]);
    return outcomes[0] as UpsertOutcome;
  }

  /**
   * Applies every document in order, in one transaction. Documents that violate a unique index
   * are skipped and the first such error is thrown once the others are stored, as an unordered
   * MongoDB bulk write.
   */
  async bulkUpsert(docs: T[]): Promise<UpsertOutcome[]> {
    this.host.assertOpen();
    for (const doc of docs) assertStoredDocument(doc, this.name);
    const { outcomes, duplicate } = await this.host.commit(
      docs.map((doc) => ({ collection: this.name, upsert: doc })),
      { skipDuplicates: true },
    );
    if (duplicate) throw duplicate;
    return outcomes as UpsertOutcome[];
  }

  async deleteById(id: string): Promise<boolean> {
    this.host.assertOpen();
    const { outcomes } = await this.host.commit([{ collection: this.name, deleteId: id }]);
    return outcomes[0] === 'deleted';
  }

  async deleteMany(filter: Filter): Promise<number> {
    this.host.assertOpen();
    const ids = this.select(normalizeGeoFilter(filter).filter).map((c) => c.skeleton._id);
    await this.host.commit(ids.map((id) => ({ collection: this.name, deleteId: id })));
    return ids.length;
  }

  async clear(): Promise<void> {
    this.host.assertOpen();
    await this.host.commit([...this.skeletons.keys()].map((id) => ({ collection: this.name, deleteId: id })));
  }

  /** Every document, copies: for `$lookup` and unfiltered pipelines. */
  allDocuments(): StoredDocument[] {
    const docs: StoredDocument[] = [];
    for (const id of this.skeletons.keys()) {
      const doc = this.bodies.read(id);
      if (doc) docs.push(doc);
    }
    return docs;
  }

  // --- writes, called by the store's commit ------------------------------------------------

  /**
   * Applies an upsert in memory (revision guard, unique indexes); the store persists `op`.
   * `owned`: the caller hands the document over (commit), otherwise it is copied (upsert).
   */
  applyUpsert(doc: T, undo: Undo[], owned = false): AppliedWrite {
    const existing = this.skeletons.get(doc._id);
    if (existing && !(doc.revision > existing.revision)) return { outcome: 'stale', op: null };
    const stored = owned ? doc : cloneDocument(doc);
    const skeleton = skeletonOf(stored, this.paths);
    this.checkUnique(skeleton);
    const previous = this.bodies.capture(doc._id);
    if (existing) {
      this.reindex(existing, skeleton);
      forgetReplacedStrings(existing, skeleton);
    } else {
      this.index(skeleton);
    }
    this.bodies.stage(doc._id, stored);
    undo.push(() => {
      if (existing) this.reindex(skeleton, existing);
      else this.unindex(skeleton);
      this.bodies.restore(doc._id, previous);
    });
    return { outcome: existing ? 'updated' : 'inserted', op: { collection: this.name, id: doc._id, doc: stored, skeleton, plainJson: this.plainJson } };
  }

  applyDelete(id: string, undo: Undo[]): AppliedWrite {
    const existing = this.skeletons.get(id);
    if (!existing) return { outcome: 'absent', op: null };
    const previous = this.bodies.capture(id);
    this.unindex(existing);
    forgetReplacedStrings(existing, null);
    this.bodies.stage(id, null);
    undo.push(() => {
      this.index(existing);
      this.bodies.restore(id, previous);
    });
    return { outcome: 'deleted', op: { collection: this.name, id, doc: null, skeleton: null } };
  }

  /** The write is durable. */
  settled(op: PersistOp): void {
    this.bodies.settled(op.id, op.doc);
  }

  private checkUnique(skeleton: Skeleton): void {
    for (const unique of this.uniqueIndexes.values()) {
      const conflict = unique.conflict(skeleton._id, skeleton);
      if (conflict) throw new DuplicateKeyError(this.name, unique.name, conflict.key, skeleton._id);
    }
  }

  private index(skeleton: Skeleton): void {
    this.skeletons.set(skeleton._id, skeleton);
    for (const index of this.hashIndexes.values()) index.add(skeleton._id, skeleton);
    for (const index of this.uniqueIndexes.values()) index.add(skeleton._id, skeleton);
  }

  /**
   * A stored document's skeleton replaced by its next version's, in place. Deleting the entry and
   * adding it again left a deleted entry in V8's hash table on every update, and the table is
   * rebuilt whole once those fill it: at 240,000 adverts, every ~20,000 updates, holding the event
   * loop for 20 to 150 ms (the longest of them under garbage-collector pressure).
   */
  private reindex(before: Skeleton, after: Skeleton): void {
    this.skeletons.set(after._id, after);
    for (const index of this.hashIndexes.values()) index.replace(after._id, before, after);
    for (const index of this.uniqueIndexes.values()) index.replace(after._id, before, after);
  }

  private unindex(skeleton: Skeleton): void {
    this.skeletons.delete(skeleton._id);
    for (const index of this.hashIndexes.values()) index.remove(skeleton._id, skeleton);
    for (const index of this.uniqueIndexes.values()) index.remove(skeleton._id, skeleton);
  }

  private hashIndexOf(path: string): HashIndex | null {
    if (!this.hashPaths.has(path)) return null;
    let index = this.hashIndexes.get(path);
    if (!index) {
      index = new HashIndex(path);
      for (const [id, skeleton] of this.skeletons.entries()) index.add(id, skeleton);
      this.hashIndexes.set(path, index);
    }
    return index;
  }

  private readonly lookup: IndexLookup = (path, keys) => {
    if (path === '_id') {
      const ids = new Set<string>();
      for (const key of keys) if (typeof key === 'string' && this.skeletons.has(key)) ids.add(key);
      return ids;
    }
    return this.hashIndexOf(path)?.lookup(keys) ?? null;
  };

  private documentOf(candidate: Candidate<T>): T {
    candidate.doc ??= (this.bodies.read(candidate.skeleton._id) as T | undefined) ?? null;
    if (candidate.doc === null) throw new Error(`${this.name}: document ${candidate.skeleton._id} is indexed but not stored`);
    return candidate.doc;
  }

  /**
   * Candidates matching a normalised filter, narrowed by an index when one applies; the filter
   * runs on skeletons when they hold every path it reads, otherwise on the full documents.
   * `enough` stops the scan early when the caller needs no more (unsorted pages).
   */
  private select(filter: Filter, enough = Number.POSITIVE_INFINITY): Candidate<T>[] {
    const plan: CandidatePlan | null = planCandidates(filter, this.lookup);
    const test = compileFilter(filter);
    const paths = test ? filterPaths(filter) : [];
    const onSkeletons = paths !== null && pathsCovered(paths, this.paths);
    const matched: Candidate<T>[] = [];
    let evaluated = 0;
    const ids = plan ? plan.ids : this.skeletons.keys();
    for (const id of ids) {
      if (matched.length >= enough) break;
      const skeleton = this.skeletons.get(id);
      if (!skeleton) continue;
      const candidate: Candidate<T> = { skeleton, doc: null };
      if (test) {
        evaluated++;
        if (!test(onSkeletons ? skeleton : this.documentOf(candidate))) continue;
      }
      matched.push(candidate);
    }
    this.stats.queries++;
    if (plan) this.stats.indexedQueries++;
    else this.stats.fullScans++;
    this.stats.documentsEvaluated += evaluated;
    this.stats.last = { via: plan ? plan.via : null, evaluated };
    return matched;
  }
}

/** Every path of every declared index, sorted and without duplicates. */
function pathsOf(indexes: readonly IndexSpec[]): string[] {
  const paths = new Set<string>();
  for (const spec of indexes) for (const [path] of indexFields(spec)) if (path !== '_id') paths.add(path);
  return [...paths].sort();
}

function project(docs: readonly unknown[], projection: Projection): unknown[] {
  return new Query({}, MINGO_OPTIONS).find(docs, projection).all();
}
