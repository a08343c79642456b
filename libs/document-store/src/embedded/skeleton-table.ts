import { ShardedMap } from '@immo/contracts';
import type { Skeleton } from './skeleton';

/** Where a collection keeps its skeletons, by id (a `ShardedMap` of them fits: see `newSkeletonMap`). */
export interface SkeletonTable {
  readonly size: number;
  get(id: string): Skeleton | undefined;
  has(id: string): boolean;
  set(id: string, skeleton: Skeleton): unknown;
  delete(id: string): boolean;
  keys(): IterableIterator<string>;
  entries(): IterableIterator<[string, Skeleton]>;
  clear(): void;
}

/**
 * The skeletons of a collection without declared indexes, which are only `_id` and `revision`:
 * the revision by id, and the skeleton object made when asked for. As one object each, with its
 * revision boxed when it is not a small integer, they were the largest part of listings' heap:
 * 1.8 million objects at 340,000 properties, which V8 marks on every full collection. Such
 * collections are read by id, so a skeleton is rarely asked for.
 */
export class RevisionTable implements SkeletonTable {
  private readonly revisions = new ShardedMap<string, number>();

  get size(): number {
    return this.revisions.size;
  }

  get(id: string): Skeleton | undefined {
    const revision = this.revisions.get(id);
    return revision === undefined ? undefined : { _id: id, revision };
  }

  has(id: string): boolean {
    return this.revisions.has(id);
  }

  /** Keyed by the skeleton's own id: skeletons hold interned ids (see `skeletonOf`). */
  set(_id: string, skeleton: Skeleton): this {
    this.revisions.set(skeleton._id, skeleton.revision);
    return this;
  }

  delete(id: string): boolean {
    return this.revisions.delete(id);
  }

  keys(): IterableIterator<string> {
    return this.revisions.keys();
  }

  *entries(): IterableIterator<[string, Skeleton]> {
    for (const [id, revision] of this.revisions) yield [id, { _id: id, revision }];
  }

  clear(): void {
    this.revisions.clear();
  }
}

/**
 * An empty map of skeletons by id. Sharded: a collection's table grows to as many entries as it
 * has documents, and a plain `Map` grows by copying itself whole in one go (see `ShardedMap`).
 */
export function newSkeletonMap(): Map<string, Skeleton> {
  return new ShardedMap<string, Skeleton>();
}

/** The table for skeletons of these paths: revisions only when there are none, the skeletons themselves otherwise. */
export function skeletonTableFor(paths: readonly string[], skeletons: Map<string, Skeleton>): SkeletonTable {
  if (paths.length > 0) return skeletons;
  const table = new RevisionTable();
  for (const skeleton of skeletons.values()) table.set(skeleton._id, skeleton);
  return table;
}
