/**
 * Pure translation between the port and MongoDB: index declarations, the revision-guarded
 * upsert, result and error interpretation, and the rewrites MongoDB needs where it refuses
 * `$nearSphere` (count, delete and `$match`). Kept free of I/O so it is unit-tested without a
 * server.
 */
import type {
  Filter,
  FindOptions,
  IndexSpec,
  PipelineStage,
  StoredDocument,
  UpsertOutcome,
} from '../document-store.port';
import { isPlainObject } from '../document-paths';
import { metresToRadians } from '../geo/geo-math';
import { parseNear, normalizeGeoFilter } from '../geo/geo-query';
import { indexFields, indexName } from '../index-spec';

export interface MongooseIndexDefinition {
  fields: Record<string, 1 | -1 | '2dsphere'>;
  options: { name: string; unique?: true };
}

/**
 * Schema index definitions for `schema.index(fields, options)`. The `_id` index exists in every
 * collection and MongoDB refuses options on it, so a declaration of `_id` alone is dropped.
 * Duplicate declarations collapse into one, unique if any of them is.
 */
export function toMongooseIndexes(indexes: readonly IndexSpec[]): MongooseIndexDefinition[] {
  const byName = new Map<string, MongooseIndexDefinition>();
  for (const spec of indexes) {
    const fields = indexFields(spec);
    if (fields.length === 1 && fields[0]?.[0] === '_id') continue;
    const name = indexName(spec);
    const existing = byName.get(name);
    const unique = spec.unique === true || existing?.options.unique === true;
    byName.set(name, {
      fields: Object.fromEntries(fields),
      options: unique ? { name, unique: true } : { name },
    });
  }
  return [...byName.values()];
}

/** Matches the stored document only if it is older, so an equal or newer one is left alone. */
export function revisionGuardFilter(doc: StoredDocument): { _id: string; revision: { $lt: number } } {
  return { _id: doc._id, revision: { $lt: doc.revision } };
}

export interface ReplaceOneUpsert<T> {
  replaceOne: { filter: { _id: string; revision: { $lt: number } }; replacement: T; upsert: true };
}

/**
 * One guarded upsert. When the stored document is as new or newer the filter matches nothing,
 * the upsert tries to insert the `_id` again and MongoDB answers a duplicate key error on the
 * `_id_` index: that is the `stale` outcome.
 */
export function guardedReplaceOne<T extends StoredDocument>(doc: T): ReplaceOneUpsert<T> {
  return { replaceOne: { filter: revisionGuardFilter(doc), replacement: doc, upsert: true } };
}

export function outcomeOfReplace(result: { upsertedCount: number; matchedCount: number }): UpsertOutcome {
  if (result.upsertedCount > 0) return 'inserted';
  return result.matchedCount > 0 ? 'updated' : 'stale';
}

export interface DuplicateKeyInfo {
  /** Index name, e.g. `_id_` or `reference_1`, when the error tells it. */
  index: string | null;
  keyValue: unknown;
}

function readProperty(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

/** Reads a MongoDB duplicate key error (E11000), whether thrown or reported in a bulk write. */
export function duplicateKeyInfo(error: unknown): DuplicateKeyInfo | null {
  const code = readProperty(error, 'code');
  if (code !== 11000 && code !== 11001) return null;
  // Bulk write errors carry the server's raw error under `err`.
  const raw = readProperty(error, 'err') ?? error;
  const keyPattern = readProperty(error, 'keyPattern') ?? readProperty(raw, 'keyPattern');
  const keyValue = readProperty(error, 'keyValue') ?? readProperty(raw, 'keyValue') ?? null;
  const message = [readProperty(error, 'errmsg'), readProperty(raw, 'errmsg'), readProperty(error, 'message')].find(
    (m): m is string => typeof m === 'string',
  );
  const fromMessage = message ? /index: (\S+) dup key/.exec(message)?.[1] : undefined;
  if (fromMessage) return { index: fromMessage, keyValue };
  if (isPlainObject(keyPattern)) {
    const keys = Object.keys(keyPattern);
    const index = keys.length === 1 && keys[0] === '_id' ? '_id_' : keys.map((k) => `${k}_${String(keyPattern[k])}`).join('_');
    return { index, keyValue };
  }
  return { index: null, keyValue };
}

export function isIdConflict(info: DuplicateKeyInfo): boolean {
  return info.index === '_id_';
}

/**
 * Groups positions so that no `_id` appears twice in a group: group k holds the k-th write of
 * each `_id`. Running the groups one after the other gives the result of writing in order,
 * which a single unordered bulk write does not guarantee.
 */
export function splitIntoWaves(docs: readonly StoredDocument[]): number[][] {
  const seen = new Map<string, number>();
  const waves: number[][] = [];
  docs.forEach((doc, position) => {
    const wave = seen.get(doc._id) ?? 0;
    seen.set(doc._id, wave + 1);
    (waves[wave] ??= []).push(position);
  });
  return waves;
}

export interface BulkWriteReport {
  /** Operation indexes (within the bulk) that inserted a document. */
  upserted: number[];
  writeErrors: { index: number; error: unknown }[];
}

/** Upserted positions from a BulkWriteResult's `upsertedIds` (`{ [opIndex]: _id }`). */
export function upsertedPositions(upsertedIds: unknown): number[] {
  if (!isPlainObject(upsertedIds)) return [];
  return Object.keys(upsertedIds)
    .map(Number)
    .filter((n) => Number.isInteger(n));
}

/**
 * Reads what a failed unordered bulk write did (MongoBulkWriteError); null when the error is
 * not a bulk write error, which the caller then rethrows.
 */
export function bulkWriteErrorReport(error: unknown): BulkWriteReport | null {
  const writeErrors = readProperty(error, 'writeErrors');
  if (writeErrors === undefined) return null;
  const list = Array.isArray(writeErrors) ? writeErrors : [writeErrors];
  const result = readProperty(error, 'result');
  return {
    upserted: upsertedPositions(readProperty(result, 'upsertedIds') ?? readProperty(readProperty(result, 'result'), 'upsertedIds')),
    writeErrors: list.map((e: unknown) => ({ index: Number(readProperty(e, 'index')), error: e })),
  };
}

export type BulkPositionOutcome =
  | { kind: 'done'; outcome: UpsertOutcome }
  /** The `_id` existed: stale unless a concurrent writer inserted it first (checked after). */
  | { kind: 'id-conflict' }
  | { kind: 'duplicate'; info: DuplicateKeyInfo }
  | { kind: 'failed'; error: unknown };

/** Outcome of each operation of an unordered bulk of guarded upserts. */
export function classifyBulkWrite(count: number, report: BulkWriteReport): BulkPositionOutcome[] {
  const outcomes: BulkPositionOutcome[] = Array.from({ length: count }, () => ({ kind: 'done', outcome: 'updated' }));
  for (const position of report.upserted) {
    if (position >= 0 && position < count) outcomes[position] = { kind: 'done', outcome: 'inserted' };
  }
  for (const { index, error } of report.writeErrors) {
    if (!(index >= 0 && index < count)) continue;
    const info = duplicateKeyInfo(error);
    if (info && isIdConflict(info)) outcomes[index] = { kind: 'id-conflict' };
    else if (info) outcomes[index] = { kind: 'duplicate', info };
    else outcomes[index] = { kind: 'failed', error };
  }
  return outcomes;
}

function centerSphere(center: readonly [number, number], metres: number): Record<string, unknown> {
  return { $geoWithin: { $centerSphere: [[center[0], center[1]], metresToRadians(metres)] } };
}

/**
 * MongoDB refuses `$nearSphere` / `$near` in `countDocuments`, deletes and `$match`. Outside of
 * `find` the ordering is meaningless anyway, so the distance condition becomes `$geoWithin`
 * `$centerSphere` (inclusive border, like `$maxDistance`), and a `$minDistance` excludes the
 * inner circle with `$nor`.
 */
export function toFilterWithoutNear(filter: Filter): Filter {
  const { filter: normalized, near } = normalizeGeoFilter(filter);
  return near ? replaceNear(normalized) : filter;
}

function replaceNear(filter: Filter): Filter {
  const out: Filter = {};
  const extra: Filter[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      out[key] = value.map((sub: unknown) => (isPlainObject(sub) ? replaceNear(sub) : sub));
    } else if (!key.startsWith('$') && isPlainObject(value) && '$nearSphere' in value) {
      const spec = parseNear('$nearSphere', value['$nearSphere']);
      const rest: Record<string, unknown> = { ...value };
      delete rest['$nearSphere'];
      out[key] = Number.isFinite(spec.maxDistance)
        ? { ...rest, ...centerSphere(spec.center, spec.maxDistance) }
        : { ...rest, $exists: true };
      if (spec.minDistance > 0) {
        // Points exactly at $minDistance belong to the result, so only strictly closer ones go.
        extra.push({ $nor: [{ [key]: centerSphere(spec.center, spec.minDistance * (1 - 1e-9)) }] });
      }
    } else {
      out[key] = value;
    }
  }
  return extra.length === 0 ? out : { $and: [out, ...extra] };
}

/**
 * Pipelines pass through as written (`$median`, `$percentile`, `$geoNear`, `$dateToString`... are
 * native in MongoDB 7+), except `$match` stages, which get the same `$nearSphere` rewrite.
 */
export function toPipeline(pipeline: readonly PipelineStage[]): PipelineStage[] {
  return pipeline.map((stage) => {
    const match = stage['$match'];
    return isPlainObject(match) && Object.keys(stage).length === 1 ? { $match: toFilterWithoutNear(match) } : stage;
  });
}

export interface DriverFindOptions {
  sort?: Record<string, 1 | -1>;
  skip?: number;
  limit?: number;
  projection?: Record<string, 0 | 1>;
}

/** Driver find options with only what was given (the driver treats `undefined` keys as set). */
export function toFindOptions(options: FindOptions = {}): DriverFindOptions {
  const out: DriverFindOptions = {};
  if (options.sort && Object.keys(options.sort).length > 0) out.sort = options.sort;
  if (options.skip) out.skip = options.skip;
  if (options.limit) out.limit = options.limit;
  if (options.projection && Object.keys(options.projection).length > 0) out.projection = options.projection;
  return out;
}

/** One write of a transaction, decided against the revisions stored when it started. */
export type PlannedWrite =
  | { kind: 'insert'; collection: string; doc: StoredDocument }
  | { kind: 'replace'; collection: string; doc: StoredDocument; storedRevision: number }
  | { kind: 'delete'; collection: string; id: string };

/**
 * Decides a commit's writes inside a MongoDB transaction. A duplicate `_id` aborts a transaction,
 * so the revision guard cannot lean on an upsert failing as `upsert()` does: the stored revisions
 * are read first (same snapshot) and each write becomes an insert, a replace of that exact
 * revision, a delete, or nothing. Writes to one id later in the batch see the earlier ones.
 */
export function planCommit(
  writes: readonly ({ collection: string; upsert: StoredDocument } | { collection: string; deleteId: string })[],
  storedRevision: (collection: string, id: string) => number | undefined,
): { planned: PlannedWrite[]; outcomes: ('inserted' | 'updated' | 'stale' | 'deleted' | 'absent')[] } {
  const current = new Map<string, number | null>();
  const revisionOf = (collection: string, id: string): number | undefined => {
    const key = `${collection}\u0000${id}`;
    if (current.has(key)) return current.get(key) ?? undefined;
    return storedRevision(collection, id);
  };
  const planned: PlannedWrite[] = [];
  const outcomes: ('inserted' | 'updated' | 'stale' | 'deleted' | 'absent')[] = [];
  for (const write of writes) {
    if ('upsert' in write) {
      const { collection, upsert: doc } = write;
      const stored = revisionOf(collection, doc._id);
      if (stored !== undefined && !(doc.revision > stored)) {
        outcomes.push('stale');
        continue;
      }
      planned.push(stored === undefined ? { kind: 'insert', collection, doc } : { kind: 'replace', collection, doc, storedRevision: stored });
      outcomes.push(stored === undefined ? 'inserted' : 'updated');
      current.set(`${collection}\u0000${doc._id}`, doc.revision);
    } else {
      const { collection, deleteId } = write;
      const stored = revisionOf(collection, deleteId);
      outcomes.push(stored === undefined ? 'absent' : 'deleted');
      if (stored !== undefined) planned.push({ kind: 'delete', collection, id: deleteId });
      current.set(`${collection}\u0000${deleteId}`, null);
    }
  }
  return { planned, outcomes };
}
