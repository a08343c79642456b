import { greatCircleKm, type City, type GeoPoint, type PropertyDocument } from '@immo/contracts';
import { matches, type PropertyCriteria } from '@immo/property-criteria';
import { aCity, aPropertyDocument, criteriaOf } from '@immo/property-criteria/testing';
import fc from 'fast-check';
import { SearchMatchIndex } from './search-match-index';

const doc = aPropertyDocument;

/** Ids of the candidates and of the matches, sorted, for comparisons that ignore order. */
const candidatesOf = (index: SearchMatchIndex, property: PropertyDocument): string[] => index.candidates(property).sort();
const matchingOf = (index: SearchMatchIndex, property: PropertyDocument): string[] =>
  index
    .matching(property)
    .map((found) => found.searchId)
    .sort();

function indexOf(searches: Record<string, Record<string, unknown>>): SearchMatchIndex<string> {
  const index = new SearchMatchIndex<string>();
  for (const [id, query] of Object.entries(searches)) index.upsert(id, criteriaOf(query), `value of ${id}`);
  return index;
}

const PARIS_15: City = aCity({ id: 75115, cityParentId: 75056, name: 'Paris 15e', insee: '75115', zipcode: '75015', department: { code: '75', id: 75, name: 'Paris' } });
const AT_PARIS_15 = { city: PARIS_15, locations: { lat: 48.8417, lon: 2.2986 } };

describe('SearchMatchIndex', () => {
  describe('transaction type', () => {
    const index = indexOf({ sale: { transactionType: 0 }, rent: { transactionType: 1 }, either: {} });

    it('offers the searches of the document’s transaction type and those without one', () => {
      expect(candidatesOf(index, doc())).toEqual(['either', 'sale']);
      expect(candidatesOf(index, doc({ transactionType: 1, price: 1200, pricePerMeter: 18.75 }))).toEqual(['either', 'rent']);
    });

    it('offers only the open searches to a transaction type outside the enum', () => {
      expect(candidatesOf(index, doc({ transactionType: 3 }))).toEqual(['either']);
    });
  });

  describe('property types', () => {
    const index = indexOf({ flats: { propertyTypes: [0] }, housesOrFlats: { propertyTypes: [1, 0] }, houses: { propertyTypes: [1] }, anything: {} });

    it('offers the searches listing the document’s type and those listing none', () => {
      expect(candidatesOf(index, doc())).toEqual(['anything', 'flats', 'housesOrFlats']);
      expect(candidatesOf(index, doc({ propertyType: 1 }))).toEqual(['anything', 'houses', 'housesOrFlats']);
      expect(candidatesOf(index, doc({ propertyType: 9 }))).toEqual(['anything']);
    });
  });

  describe('places', () => {
    const index = indexOf({
      rhone: { includedDepartments: ['/departments/69'] },
      lyon: { includedCities: ['/cities/69123'] },
      lyon3ByInsee: { includedInseeCodes: ['69383'] },
      lyon3ByZipcode: { includedZipcodes: ['69003'] },
      // Two included places of one search that the document's city both covers: offered once.
      lyonOrRhone: { includedCities: ['/cities/69123'], includedDepartments: ['/departments/69'] },
      paris: { includedCities: ['/cities/75056'] },
      parisByInsee: { includedInseeCodes: ['75056'] },
      gironde: { includedDepartments: ['/departments/33'] },
      excludingLyon3: { excludedCities: ['/cities/69383'] },
      anywhere: {},
    });

    it('offers searches of the department, of the commune of an arrondissement, of its INSEE code and postal code', () => {
      expect(index.candidates(doc())).toHaveLength(new Set(index.candidates(doc())).size);
      expect(candidatesOf(index, doc())).toEqual(['anywhere', 'excludingLyon3', 'lyon', 'lyon3ByInsee', 'lyon3ByZipcode', 'lyonOrRhone', 'rhone']);
      expect(matchingOf(index, doc())).toEqual(['anywhere', 'lyon', 'lyon3ByInsee', 'lyon3ByZipcode', 'lyonOrRhone', 'rhone']);
    });

    it('sees an arrondissement through the shared table when the document has no parent id', () => {
      const paris15WithoutParent = doc({ ...AT_PARIS_15, city: { ...PARIS_15, cityParentId: null } });
      expect(matchingOf(index, paris15WithoutParent)).toEqual(['anywhere', 'excludingLyon3', 'paris', 'parisByInsee']);
    });

    it('offers a document without a city only the searches without included places', () => {
      expect(candidatesOf(index, doc({ city: null }))).toEqual(['anywhere', 'excludingLyon3']);
    });

    it('reads every postal code of a commune grouped by zipcode', () => {
      const villeurbanne = aCity({ id: 69266, cityParentId: null, insee: '69266', zipcode: '69100', groupedCityZipcodes: ['69100', '69603'] });
      const byZipcode = indexOf({ cedex: { includedZipcodes: ['69603'] } });
      expect(matchingOf(byZipcode, doc({ city: villeurbanne }))).toEqual(['cedex']);
    });
  });

  describe('radius and shapes', () => {
    const index = indexOf({
      nearLyon: { lat: 45.764, lon: 4.8357, radius: 10 },
      nearParis: { lat: 48.8566, lon: 2.3522, radius: 10 },
      // Wider than the finest cells allow: filed under coarser ones.
      aroundLyon300: { lat: 45.764, lon: 4.8357, radius: 300 },
      // The whole globe: too wide for any cells, filed as "any place".
      everywhere: { lat: 45.764, lon: 4.8357, radius: 25_000 },
      lyonSquare: { geoShapes: [[[4.8, 45.7], [4.9, 45.7], [4.9, 45.8], [4.8, 45.8], [4.8, 45.7]]] },
      parisSquare: { geoShapes: [[[2.2, 48.8], [2.5, 48.8], [2.5, 48.9], [2.2, 48.9], [2.2, 48.8]]] },
    });

    it('offers the searches whose area the document’s cell overlaps', () => {
      expect(candidatesOf(index, doc())).toEqual(['aroundLyon300', 'everywhere', 'lyonSquare', 'nearLyon']);
      expect(matchingOf(index, doc(AT_PARIS_15))).toEqual(['everywhere', 'nearParis', 'parisSquare']);
    });

    it('offers none of them to a document without coordinates', () => {
      expect(candidatesOf(index, doc({ locations: null }))).toEqual(['everywhere']);
      expect(matchingOf(index, doc({ locations: null }))).toEqual([]);
    });

    it('follows a radius across the antimeridian and over a pole', () => {
      const wrapped = indexOf({
        dateLine: { lat: 0, lon: 179.95, radius: 30 },
        pole: { lat: 89.9, lon: 0, radius: 50 },
      });
      expect(matchingOf(wrapped, doc({ locations: { lat: 0.05, lon: -179.95 } }))).toEqual(['dateLine']);
      expect(matchingOf(wrapped, doc({ locations: { lat: 89.9, lon: 180 } }))).toEqual(['pole']);
    });

    it('takes a document exactly on the radius', () => {
      const centre = { lat: 45.764, lon: 4.8357 };
      const edge = { lat: 45.5, lon: 5.25 };
      const exact = indexOf({ edge: { ...centre, radius: greatCircleKm(centre, edge) } });
      expect(matchingOf(exact, doc({ locations: edge }))).toEqual(['edge']);
    });

    it('offers every area search to a document whose coordinates are off the globe', () => {
      expect(candidatesOf(index, doc({ locations: { lat: 95, lon: 4.8 } }))).toEqual(['aroundLyon300', 'everywhere', 'lyonSquare', 'nearLyon', 'nearParis', 'parisSquare']);
    });

    it('files a search with places under its places, whatever its radius', () => {
      const both = indexOf({ lyonAndRadius: { includedCities: ['/cities/69123'], lat: 48.8566, lon: 2.3522, radius: 10 } });
      expect(candidatesOf(both, doc())).toEqual(['lyonAndRadius']);
      expect(matchingOf(both, doc())).toEqual([]);
    });
  });

  describe('budget', () => {
    const index = indexOf({
      upTo200k: { budgetMax: 200_000 },
      from250kTo300k: { budgetMin: 250_000, budgetMax: 300_000 },
      exactly289k: { budgetMin: 289_000, budgetMax: 289_000 },
      from1m: { budgetMin: 1_000_000 },
      rent: { budgetMax: 1500 },
      noBudget: {},
    });

    it('offers the searches whose budget buckets hold the price', () => {
      expect(candidatesOf(index, doc())).toEqual(['exactly289k', 'from250kTo300k', 'noBudget']);
      expect(candidatesOf(index, doc({ price: 2_500_000, pricePerMeter: null }))).toEqual(['from1m', 'noBudget']);
      expect(candidatesOf(index, doc({ price: 0, pricePerMeter: null }))).toEqual(['noBudget', 'rent', 'upTo200k']);
    });

    it('offers only the searches without a budget to a document without a price', () => {
      expect(candidatesOf(index, doc({ price: null as unknown as number }))).toEqual(['noBudget']);
      expect(candidatesOf(index, doc({ price: Number.NaN }))).toEqual(['noBudget']);
    });

    it('keeps a price on a bucket edge in the bucket of a bound equal to it', () => {
      const edge = 2 ** (73 / 4);
      const onEdge = indexOf({ fromEdge: { budgetMin: edge }, toEdge: { budgetMax: edge } });
      expect(matchingOf(onEdge, doc({ price: edge, pricePerMeter: null }))).toEqual(['fromEdge', 'toEdge']);
    });
  });

  describe('changes', () => {
    it('replaces a search’s criteria and value on upsert', () => {
      const index = indexOf({ s: { includedDepartments: ['/departments/33'] } });
      expect(matchingOf(index, doc())).toEqual([]);
      index.upsert('s', criteriaOf({ includedDepartments: ['/departments/69'] }), 'updated');
      expect(index.matching(doc())).toEqual([{ searchId: 's', value: 'updated' }]);
      expect(index.size).toBe(1);
      expect(index.value('s')).toBe('updated');
    });

    it('forgets a removed search and reuses nothing of it', () => {
      const index = indexOf({ a: {}, b: { transactionType: 0 } });
      index.remove('a');
      index.remove('unknown');
      expect(index.size).toBe(1);
      expect(index.value('a')).toBeUndefined();
      expect(candidatesOf(index, doc())).toEqual(['b']);
      index.upsert('c', criteriaOf({ transactionType: 1 }), 'c');
      expect(candidatesOf(index, doc())).toEqual(['b']);
      index.remove('b');
      index.remove('c');
      expect(index.size).toBe(0);
      expect(index.candidates(doc())).toEqual([]);
    });

    it('applies the criteria the index does not file under through matches', () => {
      const index = indexOf({ large: { surfaceMin: 100 }, small: { surfaceMax: 70 } });
      expect(candidatesOf(index, doc())).toEqual(['large', 'small']);
      expect(matchingOf(index, doc())).toEqual(['small']);
    });
  });

  describe('agrees with matches over every search', () => {
    /** The float right above or below `x`, to put values a hair off a bucket edge. */
    const step = (x: number, direction: 1 | -1): number => {
      const view = new DataView(new ArrayBuffer(8));
      view.setFloat64(0, x);
      view.setBigInt64(0, view.getBigInt64(0) + BigInt(direction * Math.sign(x)));
      return view.getFloat64(0);
    };
    const bucketEdge = 2 ** (73 / 4);
    const PRICES = [0, 1, 1200, 150_000, 200_000, 289_000, bucketEdge, step(bucketEdge, 1), step(bucketEdge, -1), 2 ** 18, 1e10];

    const POINTS: readonly GeoPoint[] = [
      { lat: 48.8566, lon: 2.3522 },
      { lat: 48.8417, lon: 2.2986 },
      { lat: 45.7597, lon: 4.8553 },
      { lat: 43.2965, lon: 5.3698 },
      { lat: 41.9192, lon: 8.7386 },
      // On cell edges at every grid size.
      { lat: 48, lon: 4 },
      { lat: 45.25, lon: 4.75 },
      { lat: 0, lon: 179.99 },
      { lat: 0, lon: -179.99 },
      { lat: 89.95, lon: 10 },
    ];
    const CITIES: readonly City[] = [
      aCity(),
      aCity({ id: 69123, cityParentId: null, name: 'Lyon', insee: '69123', zipcode: '69001', hasGroupedByName: true, groupedCityZipcodes: ['69001', '69003'] }),
      PARIS_15,
      aCity({ id: 75056, cityParentId: null, name: 'Paris', insee: '75056', zipcode: '75001', department: { code: '75', id: 75, name: 'Paris' } }),
      aCity({ id: 13201, cityParentId: null, name: 'Marseille 1er', insee: '13201', zipcode: '13001', department: { code: '13', id: 13, name: 'Bouches-du-Rhône' } }),
      aCity({ id: 201004, cityParentId: null, name: 'Ajaccio', insee: '2a004', zipcode: '20000', department: { code: '2A', id: 201, name: 'Corse-du-Sud' } }),
      aCity({ id: 69266, cityParentId: null, name: 'Villeurbanne', insee: '69266', zipcode: '69100', groupedCityZipcodes: ['69100', '69603'] }),
    ];

    const location: fc.Arbitrary<GeoPoint | null> = fc.oneof(
      fc.constant(null),
      fc.constantFrom(...POINTS),
      fc.record({ lat: fc.double({ min: 41, max: 51.5, noNaN: true }), lon: fc.double({ min: -5.5, max: 10, noNaN: true }) }),
      fc.record({ lat: fc.double({ min: -90, max: 90, noNaN: true }), lon: fc.double({ min: -180, max: 180, noNaN: true }) }),
      // Data errors: off the globe's ranges.
      fc.constantFrom({ lat: 95, lon: 2 }, { lat: 45.76, lon: 364.85 }, { lat: Number.NaN, lon: 2 }),
    );

    const property: fc.Arbitrary<PropertyDocument> = fc
      .record({
        transactionType: fc.constantFrom(0, 1, 3),
        propertyType: fc.constantFrom(0, 1, 3, 9),
        price: fc.oneof(fc.constantFrom(...PRICES, -5, Infinity, Number.NaN, null as unknown as number), fc.double({ min: 0, max: 2e6, noNaN: true })),
        surface: fc.constantFrom(null, 12, 64, 120),
        locations: location,
        city: fc.option(fc.constantFrom(...CITIES), { nil: null, freq: 5 }),
      })
      // No price per m², so that the default coherent-price filter does not hide the rest.
      .map((overrides) => doc({ ...overrides, pricePerMeter: null }));

    type Query = Record<string, unknown>;
    const list = (name: string, values: readonly unknown[]): fc.Arbitrary<Query> =>
      fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 3 }).map((items) => ({ [name]: items }));
    const sortedPrices = [...PRICES].sort((a, b) => a - b);
    const budget: fc.Arbitrary<Query> = fc
      .tuple(fc.nat(sortedPrices.length - 1), fc.nat(sortedPrices.length - 1), fc.constantFrom('both', 'min', 'max'))
      .map(([i, j, sides]) => ({
        ...(sides !== 'max' && { budgetMin: sortedPrices[Math.min(i, j)] }),
        ...(sides !== 'min' && { budgetMax: sortedPrices[Math.max(i, j)] }),
      }));
    const radius: fc.Arbitrary<Query> = fc
      .tuple(fc.constantFrom(...POINTS), fc.oneof(fc.constantFrom(0.5, 10, 30, 50, 400, 3000, 25_000), fc.constantFrom(...POINTS)))
      .map(([centre, reach]) => ({
        lat: centre.lat,
        lon: centre.lon,
        // A radius exactly as long as the distance to another known point tests the inclusive edge.
        radius: typeof reach === 'number' ? reach : Math.max(greatCircleKm(centre, reach), 0.001),
      }));
    const RINGS = [
      [[2.2, 48.8], [2.5, 48.8], [2.5, 48.9], [2.2, 48.9], [2.2, 48.8]],
      // A vertex exactly on Lyon.
      [[4.8553, 45.7597], [5.5, 45.0], [4.0, 45.0], [4.8553, 45.7597]],
      // Edges on cell edges.
      [[4, 45.25], [4.75, 45.25], [4.75, 48], [4, 48], [4, 45.25]],
      // Most of metropolitan France, concave on its east side.
      [[-5, 42], [8, 42], [3, 46.5], [8, 51], [-5, 51], [-5, 42]],
      [[179.5, -1], [180, -1], [180, 1], [179.5, 1], [179.5, -1]],
    ];
    const filters: fc.Arbitrary<Query>[] = [
      fc.constantFrom(0, 1).map((transactionType) => ({ transactionType })),
      list('propertyTypes', [0, 1, 3, 5]),
      budget,
      list('includedCities', ['/cities/75056', '69123', '/cities/69383', '13055', '75115', '201004']),
      list('includedDepartments', ['/departments/75', '69', '201', '13']),
      list('includedInseeCodes', ['75056', '69383', '2A004', '13055', '69266']),
      list('includedZipcodes', ['75015', '69003', '69603', '20000', '69100']),
      list('excludedCities', ['75056', '/cities/69383']),
      list('excludedZipcodes', ['75001', '69100']),
      radius,
      fc.uniqueArray(fc.constantFrom(...RINGS), { minLength: 1, maxLength: 2 }).map((rings) => ({ geoShapes: rings })),
      fc.constantFrom(50, 64, 100).map((surfaceMin) => ({ surfaceMin })),
      fc.constantFrom('true', 'false').map((withLocation) => ({ withLocation })),
    ];
    const criteria: fc.Arbitrary<PropertyCriteria> = fc
      .subarray(filters, { maxLength: 5 })
      .chain((chosen) => fc.tuple(...chosen))
      .map((parts) => criteriaOf(Object.assign({}, ...parts) as Query));

    const searchId = fc.integer({ min: 0, max: 29 }).map((n) => `search-${n}`);
    const change = fc.oneof(
      { arbitrary: fc.tuple(searchId, criteria).map(([id, c]) => ({ upsert: id, criteria: c })), weight: 4 },
      { arbitrary: searchId.map((id) => ({ remove: id })), weight: 1 },
    );

    it('finds exactly the searches matches accepts, after any creations, updates and removals', () => {
      fc.assert(
        fc.property(fc.array(change, { minLength: 1, maxLength: 40 }), fc.array(property, { minLength: 1, maxLength: 8 }), (changes, properties) => {
          const index = new SearchMatchIndex<number>();
          const live = new Map<string, { criteria: PropertyCriteria; value: number }>();
          changes.forEach((c, n) => {
            if ('remove' in c) {
              index.remove(c.remove);
              live.delete(c.remove);
            } else {
              index.upsert(c.upsert, c.criteria, n);
              live.set(c.upsert, { criteria: c.criteria, value: n });
            }
          });
          expect(index.size).toBe(live.size);
          for (const p of properties) {
            const expected = [...live].filter(([, search]) => matches(search.criteria, p)).map(([id, search]) => ({ searchId: id, value: search.value }));
            const byId = (a: { searchId: string }, b: { searchId: string }) => a.searchId.localeCompare(b.searchId);
            expect(index.matching(p).sort(byId)).toEqual(expected.sort(byId));
            const candidates = index.candidates(p);
            expect(new Set(candidates).size).toBe(candidates.length);
            expect(candidates).toEqual(expect.arrayContaining(expected.map((found) => found.searchId)));
          }
        }),
        { numRuns: 400 },
      );
    });
  });
});
