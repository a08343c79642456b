import { Aggregator, Query } from 'mingo';
import type {
  CollectionSpec,
  DocumentCollection,
  Filter,
  FindOptions,
  IndexSpec,
  PipelineStage,
  Projection,
  StoredDocument,
  UpsertOutcome,
} from '../document-store.port';
import { isPlainObject, splitPath } from '../document-paths';
import { assertStoredDocument } from '../document-validation';
import { DuplicateKeyError } from '../errors';
import { nearestDistance, normalizeGeoFilter } from '../geo/geo-query';
import { indexFields, indexName } from '../index-spec';
import { sortByKeys, sortDocuments } from './bson-order';
import { type CandidatePlan, type IndexLookup, planCandidates } from './candidate-planner';
import { cloneDocument } from './clone';
import { compileFilter } from './filter-compiler';
import { HashIndex, UniqueIndex } from './hash-index';
import { MINGO_OPTIONS } from './mingo-context';

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
  markDirty(collection: string): void;
  /** Stored documents of another collection, read-only, for `$lookup` and friends. */
  documentsOf(collection: string): readonly StoredDocument[];
}

// Stages that only read their input documents. With anything else in a pipeline (mingo's
// `$unwind` and `$addFields` write into input documents, for instance) the inputs are copied
// first, so stored documents are never changed by an aggregation.
const READ_ONLY_STAGES = new Set([
  '$match',
  '$group',
  '$sort',
  '$skip',
  '$limit',
  '$count',
  '$project',
  '$sortByCount',
  '$bucket',
  '$bucketAuto',
  '$facet',
  '$sample',
  '$geoNear',
  '$unset',
  '$lookup',
]);

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
  private readonly docs = new Map<string, T>();
  private readonly hashIndexes = new Map<string, HashIndex>();
  private readonly uniqueIndexes = new Map<string, UniqueIndex>();
  private readonly geoFields = new Set<string>();
  private stats = emptyStats();

  constructor(
    spec: CollectionSpec,
    private readonly host: CollectionHost,
  ) {
    this.name = spec.name;
    this.declareIndexes(spec.indexes);
  }

  /**
   * Adds indexes not declared yet and builds them over the current documents. A unique index the
   * documents already violate is refused, as MongoDB refuses to build it.
   */
  declareIndexes(indexes: readonly IndexSpec[]): void {
    for (const spec of indexes) {
      const fields = indexFields(spec);
      const [firstPath, firstKind] = fields[0] as [string, 1 | -1 | '2dsphere'];
      if (firstKind === '2dsphere') this.geoFields.add(firstPath);
      else if (firstPath !== '_id' && !this.hashIndexes.has(firstPath)) {
        const index = new HashIndex(firstPath);
        for (const [id, doc] of this.docs) index.add(id, doc);
        this.hashIndexes.set(firstPath, index);
      }
      const name = indexName(spec);
      const paths = fields.map(([path]) => path);
      if (spec.unique && !this.uniqueIndexes.has(name) && !(paths.length === 1 && paths[0] === '_id')) {
        const unique = new UniqueIndex(name, paths);
        for (const [id, doc] of this.docs) {
          const conflict = unique.conflict(id, doc);
          if (conflict) throw new DuplicateKeyError(this.name, name, conflict.key, id);
          unique.add(id, doc);
        }
        this.uniqueIndexes.set(name, unique);
      }
    }
  }

  queryStats(): QueryStats {
    return { ...this.stats, last: this.stats.last && { ...this.stats.last } };
  }

  resetQueryStats(): void {
    this.stats = emptyStats();
  }

  /** Number of stored documents. */
  get size(): number {
    return this.docs.size;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    this.host.assertOpen();
    const { filter: normalized, near } = normalizeGeoFilter(filter);
    const skip = options.skip ?? 0;
    if (!Number.isInteger(skip) || skip < 0) throw new RangeError('skip must be a non-negative integer');
    // As in MongoDB, a limit of 0 means no limit.
    const end = options.limit ? skip + Math.abs(options.limit) : undefined;
    const sorted = Boolean(options.sort && Object.keys(options.sort).length > 0);
    let matched = this.select(normalized, sorted || near ? undefined : end);
    if (options.sort && sorted) {
      matched = sortDocuments(matched, options.sort, end);
    } else if (near) {
      const parts = splitPath(near.path);
      matched = sortByKeys(matched, (doc) => [nearestDistance(doc, parts, near.center)], [1], end);
    }
    let page: readonly unknown[] = matched.slice(skip, end);
    if (options.projection && Object.keys(options.projection).length > 0) page = project(page, options.projection);
    return page.map((doc) => cloneDocument(doc) as T);
  }

  async findById(id: string): Promise<T | null> {
    this.host.assertOpen();
    const doc = this.docs.get(id);
    return doc ? cloneDocument(doc) : null;
  }

  async count(filter: Filter): Promise<number> {
    this.host.assertOpen();
    return this.select(normalizeGeoFilter(filter).filter).length;
  }

  async aggregate<R = Record<string, unknown>>(pipeline: PipelineStage[]): Promise<R[]> {
    this.host.assertOpen();
    const stages = pipeline.map((stage) => this.prepareStage(stage));
    const names = stages.map(stageName);
    const writing = names.find((name) => WRITING_STAGES.has(name));
    if (writing) throw new Error(`${writing} is not supported by the embedded document store`);
    const readOnly = names.every((name) => READ_ONLY_STAGES.has(name));

    let source: unknown[];
    let rest = stages;
    const leadingMatch = stages[0]?.['$match'];
    if (isPlainObject(leadingMatch)) {
      source = this.select(leadingMatch);
      rest = stages.slice(1);
    } else {
      source = Array.from(this.docs.values());
    }
    if (!readOnly) source = source.map(cloneDocument);
    if (rest.length === 0) return source.map((doc) => cloneDocument(doc) as R);

    const resolve = (name: string): Record<string, unknown>[] => {
      const docs = this.host.documentsOf(name) as unknown as Record<string, unknown>[];
      return readOnly ? [...docs] : docs.map(cloneDocument);
    };
    const results = new Aggregator(rest, { ...MINGO_OPTIONS, collectionResolver: resolve }).run(source);
    return results.map((doc) => cloneDocument(doc) as R);
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
    return this.write(doc);
  }

  /**
   * Applies every document in order. Documents that violate a unique index are skipped and the
   * first such error is thrown once the others are applied, as an unordered MongoDB bulk write.
   */
  async bulkUpsert(docs: T[]): Promise<UpsertOutcome[]> {
    this.host.assertOpen();
    for (const doc of docs) assertStoredDocument(doc, this.name);
    const outcomes: UpsertOutcome[] = [];
    let failure: DuplicateKeyError | null = null;
    for (const doc of docs) {
      try {
        outcomes.push(this.write(doc));
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        failure ??= error;
        outcomes.push('stale');
      }
    }
    if (failure) throw failure;
    return outcomes;
  }

  async deleteById(id: string): Promise<boolean> {
    this.host.assertOpen();
    const doc = this.docs.get(id);
    if (!doc) return false;
    this.remove(doc);
    this.host.markDirty(this.name);
    return true;
  }

  async deleteMany(filter: Filter): Promise<number> {
    this.host.assertOpen();
    const matched = this.select(normalizeGeoFilter(filter).filter);
    for (const doc of matched) this.remove(doc);
    if (matched.length > 0) this.host.markDirty(this.name);
    return matched.length;
  }

  async clear(): Promise<void> {
    this.host.assertOpen();
    const hadDocuments = this.docs.size > 0;
    this.docs.clear();
    for (const index of this.hashIndexes.values()) index.clear();
    for (const index of this.uniqueIndexes.values()) index.clear();
    if (hadDocuments) this.host.markDirty(this.name);
  }

  /** Stored documents, not copies: for the store's flush and `$lookup`, which only read them. */
  storedDocuments(): T[] {
    return Array.from(this.docs.values());
  }

  /** Puts documents read from disk back, without revision checks (they are the stored state). */
  load(docs: readonly unknown[]): void {
    for (const doc of docs) {
      assertStoredDocument(doc, this.name);
      const stored = doc as T;
      this.checkUnique(stored);
      const previous = this.docs.get(stored._id);
      if (previous) this.remove(previous);
      this.insert(stored);
    }
  }

  private write(doc: T): UpsertOutcome {
    const existing = this.docs.get(doc._id);
    if (existing && !(doc.revision > existing.revision)) return 'stale';
    const stored = cloneDocument(doc);
    this.checkUnique(stored);
    if (existing) this.remove(existing);
    this.insert(stored);
    this.host.markDirty(this.name);
    return existing ? 'updated' : 'inserted';
  }

  private checkUnique(doc: T): void {
    for (const unique of this.uniqueIndexes.values()) {
      const conflict = unique.conflict(doc._id, doc);
      if (conflict) throw new DuplicateKeyError(this.name, unique.name, conflict.key, doc._id);
    }
  }

  private insert(doc: T): void {
    this.docs.set(doc._id, doc);
    for (const index of this.hashIndexes.values()) index.add(doc._id, doc);
    for (const index of this.uniqueIndexes.values()) index.add(doc._id, doc);
  }

  private remove(doc: T): void {
    this.docs.delete(doc._id);
    for (const index of this.hashIndexes.values()) index.remove(doc._id, doc);
    for (const index of this.uniqueIndexes.values()) index.remove(doc._id, doc);
  }

  private *docsOf(ids: ReadonlySet<string>): Generator<T> {
    for (const id of ids) {
      const doc = this.docs.get(id);
      if (doc) yield doc;
    }
  }

  private readonly lookup: IndexLookup = (path, keys) => {
    if (path === '_id') {
      const ids = new Set<string>();
      for (const key of keys) if (typeof key === 'string' && this.docs.has(key)) ids.add(key);
      return ids;
    }
    return this.hashIndexes.get(path)?.lookup(keys) ?? null;
  };

  /**
   * Stored documents matching a normalised filter, narrowed by an index when one applies.
   * `enough` stops the scan early when the caller needs no more (unsorted pages).
   */
  private select(filter: Filter, enough = Number.POSITIVE_INFINITY): T[] {
    const plan: CandidatePlan | null = planCandidates(filter, this.lookup);
    const test = compileFilter(filter);
    const matched: T[] = [];
    let evaluated = 0;
    const candidates = plan ? this.docsOf(plan.ids) : this.docs.values();
    for (const doc of candidates) {
      if (matched.length >= enough) break;
      evaluated++;
      if (!test || test(doc)) matched.push(doc);
    }
    this.stats.queries++;
    if (plan) this.stats.indexedQueries++;
    else this.stats.fullScans++;
    this.stats.documentsEvaluated += evaluated;
    this.stats.last = { via: plan ? plan.via : null, evaluated };
    return matched;
  }
}

function project(docs: readonly unknown[], projection: Projection): unknown[] {
  return new Query({}, MINGO_OPTIONS).find(docs, projection).all();
}
