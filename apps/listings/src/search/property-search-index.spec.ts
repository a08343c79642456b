import { anAdvert, aCity, aPropertyDocument, criteriaOf, uuidOf } from './property-document.fixture';
import { PropertySearchIndex } from './property-search-index';
import { searchRowOf } from './search-row';

const property = (n: number, overrides: Parameters<typeof aPropertyDocument>[0] = {}) => searchRowOf(aPropertyDocument({ uuid: uuidOf(n), ...overrides }));

describe('PropertySearchIndex', () => {
  it('reflects a replaced property: its price, words, city and adverts', () => {
    const index = new PropertySearchIndex();
    index.upsert(property(1));
    index.upsert(property(2, { price: 150_000, pricePerMeter: 2343.75 }));
    expect(index.search(criteriaOf({ budgetMax: 200_000 })).ids).toEqual([uuidOf(2)]);

    const paris15 = aCity({ id: 75115, cityParentId: 75056, insee: '75115', zipcode: '75015', department: { code: '75', id: 75, name: 'Paris' } });
    index.upsert(
      property(1, {
        price: 120_000,
        pricePerMeter: 1875,
        title: 'Maison avec jardin',
        description: 'Grand jardin',
        city: paris15,
        adverts: [anAdvert({ title: 'Maison', description: 'Jardin', site: 'portal-b', virtualTour: 'https://tour.example/1' })],
      }),
    );
    expect(index.size).toBe(2);
    expect(index.search(criteriaOf({ budgetMax: 200_000, order: { price: 'asc' } })).ids).toEqual([uuidOf(1), uuidOf(2)]);
    expect(index.search(criteriaOf({ expressions: [[{ word: 'travaux' }]] })).ids).toEqual([uuidOf(2)]);
    expect(index.search(criteriaOf({ expressions: [[{ word: 'jard' }]] })).ids).toEqual([uuidOf(1)]);
    expect(index.search(criteriaOf({ includedCities: '/cities/75056' })).ids).toEqual([uuidOf(1)]);
    expect(index.search(criteriaOf({ includedCities: '/cities/69123' })).ids).toEqual([uuidOf(2)]);
    expect(index.search(criteriaOf({ includedSites: 'portal-b', withVirtualTour: true })).ids).toEqual([uuidOf(1)]);
    expect(index.search(criteriaOf({ includedSites: 'synthetic-portal-a' })).ids).toEqual([uuidOf(2)]);
  });

  it('finds a property by the price of any live advert, even one between a cheaper and a dearer advert', () => {
    const index = new PropertySearchIndex();
    const advert = (price: number, expired = false) => anAdvert({ price, expired });
    index.upsert(property(1, { adverts: [advert(150_000), advert(220_000), advert(400_000)] }));
    index.upsert(property(2, { adverts: [advert(150_000), advert(220_000, true), advert(400_000)] }));
    index.upsert(property(3, { adverts: [advert(220_000, true)] }));
    expect(index.search(criteriaOf({ advertPriceMin: 200_000, advertPriceMax: 250_000 })).ids).toEqual([uuidOf(1)]);
    expect(index.search(criteriaOf({ advertPriceMin: 400_000, order: { price: 'asc' } })).ids).toEqual([uuidOf(1), uuidOf(2)]);
    expect(index.search(criteriaOf({ advertPriceMax: 150_000 })).total).toBe(2);
  });

  it('finds no property by advert price in a row stored before live prices were indexed', () => {
    const index = new PropertySearchIndex();
    const row = property(1);
    for (const advert of row.adverts) delete advert.livePrice;
    index.upsert(row);
    expect(index.search(criteriaOf({})).total).toBe(1);
    expect(index.search(criteriaOf({ advertPriceMin: 0 })).total).toBe(0);
  });

  it('forgets a removed property, and takes it back later', () => {
    const index = new PropertySearchIndex();
    [1, 2, 3].forEach((n) => index.upsert(property(n)));
    index.remove(uuidOf(2));
    index.remove(uuidOf(9));
    expect(index.has(uuidOf(2))).toBe(false);
    expect(index.size).toBe(2);
    expect(index.search(criteriaOf({ expressions: [[{ word: 'appartement' }]] }))).toEqual({ total: 2, ids: [uuidOf(1), uuidOf(3)] });
    index.upsert(property(4, { price: 1 }));
    index.upsert(property(2));
    expect(index.search(criteriaOf({ order: { price: 'asc' } })).ids).toEqual([uuidOf(4), uuidOf(1), uuidOf(2), uuidOf(3)]);
  });

  it('pages in the requested order, missing values last and ties by uuid, and counts every match', () => {
    const index = new PropertySearchIndex();
    [5, 3, 1, 4, 2].forEach((n) => index.upsert(property(n, { surface: n === 4 ? null : n % 2 === 0 ? 50 : 70, pricePerMeter: null })));
    const pageOf = (page: number, direction: string) => index.search(criteriaOf({ page, itemsPerPage: 2, order: { surface: direction } }));
    expect(pageOf(1, 'asc')).toEqual({ total: 5, ids: [uuidOf(2), uuidOf(1)] });
    expect(pageOf(2, 'asc')).toEqual({ total: 5, ids: [uuidOf(3), uuidOf(5)] });
    expect(pageOf(3, 'asc')).toEqual({ total: 5, ids: [uuidOf(4)] });
    expect(pageOf(1, 'desc').ids).toEqual([uuidOf(1), uuidOf(3)]);
    expect(pageOf(4, 'desc')).toEqual({ total: 5, ids: [] });
    expect(index.search(criteriaOf({ itemsPerPage: 0 }))).toEqual({ total: 5, ids: [] });
  });

  it('drops an implausible price per m² unless asked not to', () => {
    const index = new PropertySearchIndex();
    index.upsert(property(1, { pricePerMeter: 45 }));
    expect(index.search(criteriaOf({})).total).toBe(0);
    expect(index.search(criteriaOf({ withCoherentPrice: false })).total).toBe(1);
  });

  it('lists what statistics read of every match', () => {
    const index = new PropertySearchIndex();
    index.upsert(property(1));
    index.upsert(property(2, { transactionType: 1 }));
    expect([...index.matchingRows(criteriaOf({ transactionType: 0 }))]).toEqual([
      {
        uuid: uuidOf(1),
        transactionType: 0,
        propertyType: 0,
        price: 289_000,
        pricePerMeter: 4515.63,
        surface: 64,
        landSurface: null,
        room: 3,
        bedroom: 2,
        createdAtMs: Date.UTC(2026, 1, 1, 10),
        updatedAtMs: Date.UTC(2026, 1, 20, 10),
        location: { lat: 45.7597, lon: 4.8553 },
        cityId: 69383,
        inseeCode: '69383',
        departmentId: 69,
      },
    ]);
  });

  it('reports the memory it holds, and empties on clear', () => {
    const index = new PropertySearchIndex();
    const empty = index.memoryBytes();
    for (let n = 0; n < 500; n++) index.upsert(property(n, { price: n }));
    expect(index.memoryBytes()).toBeGreaterThan(empty + 500 * 100);
    index.compact(true);
    expect(index.search(criteriaOf({ budgetMax: 9, itemsPerPage: 30 })).total).toBe(10);
    // Room trimmed away grows back for new properties.
    for (let n = 500; n < 600; n++) index.upsert(property(n, { price: n, title: 'Loft', description: 'Loft atypique' }));
    expect(index.search(criteriaOf({ budgetMin: 590, expressions: [[{ word: 'atypique' }]] })).total).toBe(10);
    index.clear();
    expect(index.size).toBe(0);
    expect(index.search(criteriaOf({})).total).toBe(0);
  });
});
