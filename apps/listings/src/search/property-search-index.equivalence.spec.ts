import type { PropertyDocument } from '@immo/contracts';
import { compareForOrder, matches, type PropertyCriteria } from '@immo/property-criteria';
import fc from 'fast-check';
import { criteriaOf } from './property-document.fixture';
import { advertPriceQuery, criteriaQuery, propertyDocument, propertyDocumentOf, uuidPool, UUIDS } from './property-search.arbitraries';
import { PropertySearchIndex, type SearchResult } from './property-search-index';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSearchIndexSnapshot, writeSearchIndexSnapshot } from '../projection/search-index-snapshot';
import { searchRowOf, type SearchRow } from './search-row';

/** Through JSON, as the listings service stores rows and loads them at start. */
const persistedRowOf = (doc: PropertyDocument): SearchRow => JSON.parse(JSON.stringify(searchRowOf(doc))) as SearchRow;

function referenceSearch(docs: Iterable<PropertyDocument>, criteria: PropertyCriteria): SearchResult & { matching: PropertyDocument[] } {
  const matching = [...docs].filter((doc) => matches(criteria, doc)).sort((a, b) => compareForOrder(criteria.order, a, b, criteria.sortMode));
  const offset = (criteria.page - 1) * criteria.itemsPerPage;
  const ids = criteria.itemsPerPage === 0 ? [] : matching.slice(offset, offset + criteria.itemsPerPage).map((doc) => doc.uuid);
  return { total: matching.length, ids, matching };
}

const DEFAULT_CRITERIA = criteriaOf({});

/** The criteria minus what every query has by default, so a failure shows only what was asked. */
function askedOf(criteria: PropertyCriteria): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(criteria).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(DEFAULT_CRITERIA[key as keyof PropertyCriteria])),
  );
}

/** What a document holds besides the fixture's boilerplate. */
function essentials(doc: PropertyDocument): unknown {
  const { '@context': _context, '@id': _id, '@type': _type, property: _property, pictures: _pictures, stations: _stations, lastCrawledAt: _crawled, lastCrawledAdvert: _lastAdvert, ...rest } = doc;
  return {
    ...rest,
    city: doc.city && { id: doc.city.id, parent: doc.city.cityParentId, insee: doc.city.insee, zipcode: doc.city.zipcode, grouped: doc.city.groupedCityZipcodes, department: doc.city.department.id },
    adverts: doc.adverts.map(({ url: _url, pictures: _p, picturesRemote: _r, contact: _c, features: _f, uuid: _u, lastCrawledAt: _l, ...advert }) => advert),
  };
}

/** A failure names the disagreeing properties and what each side saw, rather than two id lists. */
function mismatch(stage: string, criteria: PropertyCriteria, docs: ReadonlyMap<string, PropertyDocument>, index: PropertySearchIndex): string | null {
  const expected = referenceSearch(docs.values(), criteria);
  const actual = index.search(criteria);
  const indexMatches = new Set([...index.matchingRows(criteria)].map((row) => row.uuid));
  const referenceMatches = new Set(expected.matching.map((doc) => doc.uuid));
  const sameSet = indexMatches.size === referenceMatches.size && [...indexMatches].every((uuid) => referenceMatches.has(uuid));
  if (sameSet && actual.total === expected.total && JSON.stringify(actual.ids) === JSON.stringify(expected.ids)) return null;

  const lines = [`${stage}: the index disagrees with matches + compareForOrder`, `criteria asked: ${JSON.stringify(askedOf(criteria))}`];
  lines.push(`expected total ${expected.total}, ids ${JSON.stringify(expected.ids)}`, `got      total ${actual.total}, ids ${JSON.stringify(actual.ids)}`);
  const disputed = [...new Set([...indexMatches, ...referenceMatches])].filter((uuid) => indexMatches.has(uuid) !== referenceMatches.has(uuid));
  for (const uuid of disputed.slice(0, 3)) {
    const doc = docs.get(uuid) as PropertyDocument;
    lines.push(
      `property ${uuid}: matches() says ${referenceMatches.has(uuid)}, the index says ${indexMatches.has(uuid)}`,
      `  document: ${JSON.stringify(essentials(doc))}`,
      `  search row: ${JSON.stringify(searchRowOf(doc))}`,
    );
  }
  if (disputed.length === 0) lines.push('same matches, different page: the order or the paging differs');
  return lines.join('\n');
}

const operationOn = (uuids: readonly string[]) =>
  fc.oneof(
    { arbitrary: propertyDocumentOf(uuids).map((doc) => ({ upsert: doc })), weight: 3 },
    { arbitrary: fc.constantFrom(...uuids).map((uuid) => ({ remove: uuid })), weight: 1 },
  );

type Operation = { upsert: PropertyDocument } | { remove: string };

/** The index as the next start restores it from the snapshot written when the service stopped. */
function throughSnapshot(index: PropertySearchIndex): PropertySearchIndex {
  const dir = mkdtempSync(join(tmpdir(), 'index-snapshot-'));
  try {
    const file = join(dir, 'search-index.snapshot');
    writeSearchIndexSnapshot(file, index, 42);
    const read = readSearchIndexSnapshot(file, 42);
    if (read.index === null) throw new Error(`the snapshot was not read back: ${read.reason}`);
    expect(read.index.exportState()).toEqual(index.exportState());
    return read.index;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `snapshotAfter`: after that many operations, the index is replaced by its snapshot's restoration,
 * which must then answer the same and keep answering the same through the remaining operations.
 */
function assertEquivalent(loaded: readonly PropertyDocument[], operations: readonly Operation[], queries: readonly Record<string, unknown>[], snapshotAfter?: number): void {
  let index = new PropertySearchIndex();
  const docs = new Map<string, PropertyDocument>();
  const criteriaList = queries.map(criteriaOf);
  for (const doc of loaded) {
    index.upsert(persistedRowOf(doc));
    docs.set(doc.uuid, doc);
  }
  for (const criteria of criteriaList) {
    const failure = mismatch('after loading', criteria, docs, index);
    if (failure !== null) throw new Error(failure);
  }
  for (const [done, op] of operations.entries()) {
    if (done === snapshotAfter) {
      index = throughSnapshot(index);
      for (const criteria of criteriaList) {
        const failure = mismatch(`restored from a snapshot after ${done} operations`, criteria, docs, index);
        if (failure !== null) throw new Error(failure);
      }
    }
    if ('upsert' in op) {
      index.upsert(persistedRowOf(op.upsert));
      docs.set(op.upsert.uuid, op.upsert);
    } else {
      index.remove(op.remove);
      docs.delete(op.remove);
    }
  }
  expect(index.size).toBe(docs.size);
  for (const criteria of criteriaList) {
    const failure = mismatch('after replacements and removals', criteria, docs, index);
    if (failure !== null) throw new Error(failure);
  }
}

describe('PropertySearchIndex against the reference predicate and order', () => {
  it('gives the total and the page that filtering every document with matches and sorting with compareForOrder give, after loads, replacements and removals', () => {
    fc.assert(
      fc.property(
        fc.array(propertyDocument, { maxLength: 45 }),
        fc.array(operationOn(UUIDS), { maxLength: 15 }),
        fc.array(criteriaQuery, { minLength: 1, maxLength: 6 }),
        (loaded, operations, queries) => assertEquivalent(loaded, operations, queries),
      ),
      { numRuns: 250 },
    );
  });

  it('decides advert price bounds as matches does, for properties whose live prices lie on both sides of them too', () => {
    fc.assert(
      fc.property(
        fc.array(propertyDocument, { maxLength: 45 }),
        fc.array(advertPriceQuery, { minLength: 1, maxLength: 4 }),
        (loaded, queries) => assertEquivalent(loaded, [], queries),
      ),
      { numRuns: 100 },
    );
  });

  it('stays equal with enough properties for frequent words to be held as bitsets', () => {
    const uuids = uuidPool(400);
    fc.assert(
      fc.property(
        fc.array(propertyDocumentOf(uuids), { minLength: 300, maxLength: 360 }),
        fc.array(operationOn(uuids), { maxLength: 40 }),
        fc.array(criteriaQuery, { minLength: 4, maxLength: 8 }),
        (loaded, operations, queries) => assertEquivalent(loaded, operations, queries),
      ),
      { numRuns: 8 },
    );
  });

  it('answers the same when restored from its snapshot, and through the changes that follow', () => {
    const uuids = uuidPool(120);
    fc.assert(
      fc.property(
        fc.array(propertyDocumentOf(uuids), { maxLength: 100 }),
        fc.array(operationOn(uuids), { minLength: 1, maxLength: 30 }),
        fc.array(criteriaQuery, { minLength: 1, maxLength: 6 }),
        fc.nat(),
        (loaded, operations, queries, at) => assertEquivalent(loaded, operations, queries, at % operations.length),
      ),
      { numRuns: 120 },
    );
  });
});
