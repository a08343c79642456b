import { anAdvert, anEvent, aCity, aPropertyDocument } from './property-document.fixture';
import { searchRowOf } from './search-row';

describe('searchRowOf', () => {
  it('survives JSON unchanged, without a NaN turning into null on the way', () => {
    const row = searchRowOf(aPropertyDocument({ price: Number.NaN, adverts: [anAdvert({ events: [anEvent()] })] }));
    expect(JSON.parse(JSON.stringify(row))).toEqual(row);
    expect(row.price).toBeNull();
  });

  it('derives the places a city is found by, an arrondissement counting for its commune', () => {
    expect(searchRowOf(aPropertyDocument()).place).toEqual({ cityIds: [69383, 69123], inseeCodes: ['69383', '69123'], zipcodes: ['69003'], departmentId: 69 });
    const marseille1 = aCity({ id: 13201, cityParentId: null, insee: '13201', zipcode: '13001', department: { code: '13', id: 13, name: 'Bouches-du-Rhône' } });
    expect(searchRowOf(aPropertyDocument({ city: marseille1 })).place).toEqual({ cityIds: [13201, 13055], inseeCodes: ['13201', '13055'], zipcodes: ['13001'], departmentId: 13 });
    expect(searchRowOf(aPropertyDocument({ city: null })).place).toBeNull();
  });

  it('reads instants as epoch milliseconds, an unreadable one as missing, and the latest advert creation', () => {
    const row = searchRowOf(
      aPropertyDocument({
        createdAt: '2026-02-01T11:00:00+01:00',
        updatedAt: 'yesterday',
        adverts: [anAdvert({ createdAt: '2026-02-01T10:00:00+00:00' }), anAdvert({ createdAt: '2026-03-05T10:00:00+00:00', expiredAt: '2026-04-01T00:00:00+00:00' })],
      }),
    );
    expect(row.createdAtMs).toBe(Date.UTC(2026, 1, 1, 10));
    expect(row.updatedAtMs).toBeNull();
    expect(row.latestAdvertCreatedAtMs).toBe(Date.UTC(2026, 2, 5, 10));
    expect(row.adverts.map((advert) => advert.expiredAtMs)).toEqual([null, Date.UTC(2026, 3, 1)]);
  });

  it('keeps each distinct text as tokens, folded as the expressions fold them', () => {
    const row = searchRowOf(aPropertyDocument({ title: 'Salle de bain', description: '', adverts: [anAdvert({ title: 'SALLE DE BAIN', description: "Cœur d'Été, 64 m²" })] }));
    expect(row.texts).toEqual(['salle de bain', 'coeur d ete 64 m2']);
  });

  it('keeps only price and surface events, and what the advert-level filters read', () => {
    const advert = anAdvert({
      virtualTour: '  ',
      energy: { category: 'b', value: 90 },
      greenHouseGas: null,
      events: [anEvent(), anEvent({ fieldName: 'room', percentVariation: 50 }), anEvent({ fieldName: 'surface', percentVariation: 10 })],
    });
    const row = searchRowOf(aPropertyDocument({ adverts: [advert] }));
    expect(row.events.map((event) => [event.field, event.percentVariation])).toEqual([
      ['price', -3.67],
      ['surface', 10],
    ]);
    expect(row.adverts[0]).toMatchObject({ hasVirtualTour: false, energyCategory: 'B', energyValue: 90, greenHouseGasCategory: null, greenHouseGasValue: null, site: 'synthetic-portal-a', publisherType: 1 });
  });

  it('marks an implausible price per m², and keeps a property without one', () => {
    expect(searchRowOf(aPropertyDocument({ pricePerMeter: 45 })).coherentPrice).toBe(false);
    expect(searchRowOf(aPropertyDocument({ pricePerMeter: null })).coherentPrice).toBe(true);
  });
});
