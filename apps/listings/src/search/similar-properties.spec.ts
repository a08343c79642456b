import type { IndexedProperty } from './property-search-index';
import { SIMILARITY } from '@immo/property-criteria';
import { isSimilar, rankSimilar, similarityScore } from './similar-properties';

const LYON = { lat: 45.764, lon: 4.8357 };

function flat(uuid: string, overrides: Partial<IndexedProperty> = {}): IndexedProperty {
  return {
    uuid,
    transactionType: 0,
    propertyType: 0,
    price: 300_000,
    pricePerMeter: 5000,
    surface: 60,
    landSurface: null,
    room: 3,
    bedroom: 2,
    createdAtMs: Date.parse('2026-03-01T00:00:00Z'),
    updatedAtMs: Date.parse('2026-03-02T00:00:00Z'),
    location: LYON,
    cityId: 69123,
    inseeCode: '69123',
    departmentId: 69,
    ...overrides,
  };
}

describe('similar properties', () => {
  const target = flat('00000000-0000-0000-0000-00000000000a');

  it('keeps the same transaction and type, nearby or in the commune, with close price, surface and rooms', () => {
    expect(isSimilar(target, flat('b'))).toBe(true);
    expect(isSimilar(target, target)).toBe(false);
    expect(isSimilar(target, flat('c', { transactionType: 1 }))).toBe(false);
    expect(isSimilar(target, flat('d', { propertyType: 1 }))).toBe(false);
    expect(isSimilar(target, flat('e', { price: 300_000 * (1 + SIMILARITY.priceTolerance) + 1 }))).toBe(false);
    expect(isSimilar(target, flat('f', { surface: 90 }))).toBe(false);
    expect(isSimilar(target, flat('g', { room: 5 }))).toBe(false);
    // 20 km away in another commune: too far; in the same commune without coordinates: kept.
    expect(isSimilar(target, flat('h', { cityId: 69266, location: { lat: LYON.lat + 0.18, lon: LYON.lon } }))).toBe(false);
    expect(isSimilar(target, flat('i', { location: null }))).toBe(true);
    // Unknown surface and rooms do not exclude.
    expect(isSimilar(target, flat('j', { surface: null, room: null }))).toBe(true);
  });

  it('ranks by score (closest first), ties by uuid, and by the given order first', () => {
    const close = flat('b', { price: 305_000 });
    const farther = flat('c', { price: 350_000, surface: 70 });
    const twin1 = flat('e');
    const twin2 = flat('d');
    expect(similarityScore(target, twin1)).toBe(0);
    expect(rankSimilar(target, [farther, close, twin1, twin2, target], []).map((p) => p.uuid)).toEqual(['d', 'e', 'b', 'c']);
    expect(rankSimilar(target, [farther, close, twin1], [{ field: 'price', direction: 'desc' }]).map((p) => p.uuid)).toEqual(['c', 'b', 'e']);
  });

  it('counts a candidate found twice (commune and radius searches) once', () => {
    const twin = flat('b');
    expect(rankSimilar(target, [twin, twin], [])).toHaveLength(1);
  });
});
