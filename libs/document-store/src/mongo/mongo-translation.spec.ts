import { mongo } from 'mongoose';
import type { StoredDocument } from '../document-store.port';
import { EARTH_RADIUS_METRES } from '../geo/geo-math';
import {
  bulkWriteErrorReport,
  classifyBulkWrite,
  duplicateKeyInfo,
  guardedReplaceOne,
  isIdConflict,
  outcomeOfReplace,
  revisionGuardFilter,
  splitIntoWaves,
  toFilterWithoutNear,
  toFindOptions,
  toMongooseIndexes,
  toPipeline,
  upsertedPositions,
} from './mongo-translation';

const POINT = { type: 'Point', coordinates: [2.3522, 48.8566] };

/**
 * Same shape as the driver's WriteError (not exported at runtime): the server's raw error under
 * `err`, with `code`, `index` and `errmsg` read through getters.
 */
class DriverLikeWriteError {
  constructor(readonly err: Record<string, unknown>) {}
  get code(): unknown {
    return this.err['code'];
  }
  get index(): unknown {
    return this.err['index'];
  }
  get errmsg(): unknown {
    return this.err['errmsg'];
  }
}

function idDuplicate(index: number): DriverLikeWriteError {
  return new DriverLikeWriteError({
    index,
    code: 11000,
    errmsg: 'E11000 duplicate key error collection: test.listings index: _id_ dup key: { _id: "a1" }',
  });
}

function uniqueDuplicate(index: number): DriverLikeWriteError {
  return new DriverLikeWriteError({
    index,
    code: 11000,
    errmsg: 'E11000 duplicate key error collection: test.agencies index: siret_1 dup key: { siret: "123" }',
    keyPattern: { siret: 1 },
    keyValue: { siret: '123' },
  });
}

/** What the driver throws when some operations of an unordered bulk fail. */
function bulkError(writeErrors: DriverLikeWriteError[], upsertedIds: Record<number, string>): mongo.MongoBulkWriteError {
  const result = { upsertedIds } as unknown as mongo.BulkWriteResult;
  const errors = writeErrors as unknown as mongo.WriteError[];
  return new mongo.MongoBulkWriteError({ message: 'bulk failed', code: 11000, writeErrors: errors }, result);
}

describe('mongo translation', () => {
  describe('indexes', () => {
    it('turns IndexSpecs into mongoose index definitions named like MongoDB', () => {
      expect(
        toMongooseIndexes([
          { fields: { 'city.insee': 1, price: -1 }, serves: 'city by price' },
          { fields: { location: '2dsphere' }, serves: 'near a point' },
          { fields: { reference: 1 }, unique: true, serves: 'by reference' },
        ]),
      ).toEqual([
        { fields: { 'city.insee': 1, price: -1 }, options: { name: 'city.insee_1_price_-1' } },
        { fields: { location: '2dsphere' }, options: { name: 'location_2dsphere' } },
        { fields: { reference: 1 }, options: { name: 'reference_1', unique: true } },
      ]);
    });

    it('drops the implicit _id index and merges duplicate declarations', () => {
      expect(
        toMongooseIndexes([
          { fields: { _id: 1 }, unique: true, serves: 'by id' },
          { fields: { code: 1 }, serves: 'by code' },
          { fields: { code: 1 }, unique: true, serves: 'unique code' },
        ]),
      ).toEqual([{ fields: { code: 1 }, options: { name: 'code_1', unique: true } }]);
      expect(() => toMongooseIndexes([{ fields: {}, serves: 'nothing' }])).toThrow(/no field/);
    });
  });

  describe('revision-guarded upsert', () => {
    const doc: StoredDocument & { price: number } = { _id: 'a1', revision: 7, price: 1 };

    it('only matches an older stored revision', () => {
      expect(revisionGuardFilter(doc)).toEqual({ _id: 'a1', revision: { $lt: 7 } });
      expect(guardedReplaceOne(doc)).toEqual({
        replaceOne: { filter: { _id: 'a1', revision: { $lt: 7 } }, replacement: doc, upsert: true },
      });
    });

    it('reads the outcome of a replaceOne', () => {
      expect(outcomeOfReplace({ upsertedCount: 1, matchedCount: 0 })).toBe('inserted');
      expect(outcomeOfReplace({ upsertedCount: 0, matchedCount: 1 })).toBe('updated');
      expect(outcomeOfReplace({ upsertedCount: 0, matchedCount: 0 })).toBe('stale');
    });

    it('recognises duplicate key errors and which index they hit', () => {
      const thrown = Object.assign(new mongo.MongoServerError({ message: 'E11000 duplicate key error' }), {
        code: 11000,
        keyPattern: { _id: 1 },
        keyValue: { _id: 'a1' },
      });
      const fromThrown = duplicateKeyInfo(thrown);
      expect(fromThrown).toEqual({ index: '_id_', keyValue: { _id: 'a1' } });
      expect(fromThrown && isIdConflict(fromThrown)).toBe(true);

      expect(duplicateKeyInfo(idDuplicate(0))).toEqual({ index: '_id_', keyValue: null });
      const unique = duplicateKeyInfo(uniqueDuplicate(3));
      expect(unique).toEqual({ index: 'siret_1', keyValue: { siret: '123' } });
      expect(unique && isIdConflict(unique)).toBe(false);

      expect(duplicateKeyInfo({ code: 11000, keyPattern: { agency: 1, ref: 1 } })).toEqual({
        index: 'agency_1_ref_1',
        keyValue: null,
      });
      expect(duplicateKeyInfo(new Error('network'))).toBeNull();
      expect(duplicateKeyInfo({ code: 121 })).toBeNull();
      expect(duplicateKeyInfo(null)).toBeNull();
    });
  });

  describe('bulk upserts', () => {
    it('splits repeated ids into successive waves', () => {
      const docs = ['a', 'b', 'a', 'c', 'a', 'b'].map((_id) => ({ _id, revision: 1 }));
      expect(splitIntoWaves(docs)).toEqual([[0, 1, 3], [2, 5], [4]]);
      expect(splitIntoWaves([])).toEqual([]);
    });

    it('reads upserted positions', () => {
      expect(upsertedPositions({ 0: 'a', 2: 'c' })).toEqual([0, 2]);
      expect(upsertedPositions(undefined)).toEqual([]);
    });

    it('classifies each operation of a partly failed unordered bulk', () => {
      const report = bulkWriteErrorReport(bulkError([idDuplicate(1), uniqueDuplicate(2)], { 0: 'n1' }));
      expect(report).not.toBeNull();
      if (!report) return;
      expect(report.upserted).toEqual([0]);
      const outcomes = classifyBulkWrite(4, report);
      expect(outcomes[0]).toEqual({ kind: 'done', outcome: 'inserted' });
      expect(outcomes[1]).toEqual({ kind: 'id-conflict' });
      expect(outcomes[2]).toMatchObject({ kind: 'duplicate', info: { index: 'siret_1' } });
      expect(outcomes[3]).toEqual({ kind: 'done', outcome: 'updated' });
    });

    it('keeps errors that are not duplicate keys as failures', () => {
      const validation = new DriverLikeWriteError({ index: 0, code: 121, errmsg: 'Document failed validation' });
      const report = bulkWriteErrorReport(bulkError([validation], {}));
      expect(report && classifyBulkWrite(1, report)[0]).toMatchObject({ kind: 'failed' });
      expect(bulkWriteErrorReport(new Error('connection reset'))).toBeNull();
    });

    it('accepts a single write error as well as a list', () => {
      const single = { writeErrors: idDuplicate(0), result: { upsertedIds: {} } };
      expect(bulkWriteErrorReport(single)?.writeErrors).toHaveLength(1);
    });
  });

  describe('$nearSphere outside of find', () => {
    it('becomes $geoWithin $centerSphere in radians', () => {
      expect(toFilterWithoutNear({ kind: 'house', location: { $nearSphere: { $geometry: POINT, $maxDistance: 2000 } } })).toEqual({
        kind: 'house',
        location: { $geoWithin: { $centerSphere: [[2.3522, 48.8566], 2000 / EARTH_RADIUS_METRES] } },
      });
    });

    it('excludes the inner circle of a $minDistance', () => {
      const filter = toFilterWithoutNear({
        location: { $nearSphere: { $geometry: POINT, $minDistance: 1000, $maxDistance: 5000 } },
      });
      expect(filter).toEqual({
        $and: [
          { location: { $geoWithin: { $centerSphere: [[2.3522, 48.8566], 5000 / EARTH_RADIUS_METRES] } } },
          {
            $nor: [
              { location: { $geoWithin: { $centerSphere: [[2.3522, 48.8566], (1000 * (1 - 1e-9)) / EARTH_RADIUS_METRES] } } },
            ],
          },
        ],
      });
    });

    it('handles the legacy form, $near, no $maxDistance, and $and', () => {
      expect(toFilterWithoutNear({ coords: { $nearSphere: [2, 48], $maxDistance: 0.001 } })).toEqual({
        coords: { $geoWithin: { $centerSphere: [[2, 48], expect.closeTo(0.001, 12) as unknown] } },
      });
      expect(toFilterWithoutNear({ location: { $near: { $geometry: POINT } } })).toEqual({ location: { $exists: true } });
      expect(toFilterWithoutNear({ $and: [{ location: { $nearSphere: { $geometry: POINT, $maxDistance: 10 } } }] })).toEqual({
        $and: [{ location: { $geoWithin: { $centerSphere: [[2.3522, 48.8566], 10 / EARTH_RADIUS_METRES] } } }],
      });
    });

    it('leaves other filters untouched', () => {
      const filter = { price: { $lt: 3 }, location: { $geoWithin: { $centerSphere: [[0, 0], 0.1] } } };
      expect(toFilterWithoutNear(filter)).toBe(filter);
    });
  });

  describe('pipelines', () => {
    it('passes stages through, $median and $geoNear included, and rewrites $nearSphere in $match', () => {
      const group = {
        $group: {
          _id: { $dateToString: { format: '%Y-%m', date: '$publishedAt' } },
          median: { $median: { input: '$price', method: 'approximate' } },
        },
      };
      const geoNear = { $geoNear: { near: POINT, distanceField: 'd', key: 'location' } };
      const pipeline = [geoNear, { $match: { location: { $nearSphere: { $geometry: POINT, $maxDistance: 100 } } } }, group];
      const translated = toPipeline(pipeline);
      expect(translated[0]).toBe(geoNear);
      expect(translated[1]).toEqual({
        $match: { location: { $geoWithin: { $centerSphere: [[2.3522, 48.8566], 100 / EARTH_RADIUS_METRES] } } },
      });
      expect(translated[2]).toBe(group);
    });
  });

  it('builds driver find options from what is set', () => {
    expect(toFindOptions()).toEqual({});
    expect(toFindOptions({ sort: {}, skip: 0, limit: 0, projection: {} })).toEqual({});
    expect(toFindOptions({ sort: { price: -1 }, skip: 5, limit: 10, projection: { price: 1 } })).toEqual({
      sort: { price: -1 },
      skip: 5,
      limit: 10,
      projection: { price: 1 },
    });
  });
});
