import type { PropertyDocument } from '@immo/contracts';
import { compareForOrder } from './compare-for-order';
import type { OrderClause } from './criteria';
import { anAdvert, aPropertyDocument } from './property-document.fixture';

const uuid = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const property = (n: number, overrides: Partial<PropertyDocument> = {}): PropertyDocument => aPropertyDocument({ uuid: uuid(n), ...overrides });

const sortedUuids = (docs: PropertyDocument[], order: OrderClause[], sortMode: 'property' | 'advert' = 'property'): string[] =>
  [...docs].sort((a, b) => compareForOrder(order, a, b, sortMode)).map((d) => d.uuid);

describe('compareForOrder', () => {
  const cheap = property(3, { price: 100_000 });
  const dear = property(1, { price: 500_000 });
  const unpriced = property(2, { price: null as unknown as number });

  it('sorts by a field in either direction, missing values last both ways', () => {
    expect(sortedUuids([unpriced, dear, cheap], [{ field: 'price', direction: 'asc' }])).toEqual([uuid(3), uuid(1), uuid(2)]);
    expect(sortedUuids([unpriced, cheap, dear], [{ field: 'price', direction: 'desc' }])).toEqual([uuid(1), uuid(3), uuid(2)]);
  });

  it('puts documents without a price per m² or a surface last', () => {
    const docs = [property(1, { pricePerMeter: null, surface: null }), property(2, { pricePerMeter: 3000, surface: 20 }), property(3, { pricePerMeter: 5000, surface: 90 })];
    expect(sortedUuids(docs, [{ field: 'pricePerMeter', direction: 'asc' }])).toEqual([uuid(2), uuid(3), uuid(1)]);
    expect(sortedUuids(docs, [{ field: 'surface', direction: 'desc' }])).toEqual([uuid(3), uuid(2), uuid(1)]);
  });

  it('applies the clauses in the order given', () => {
    const docs = [
      property(1, { surface: 50, price: 300_000 }),
      property(2, { surface: 70, price: 200_000 }),
      property(3, { surface: 50, price: 200_000 }),
    ];
    expect(sortedUuids(docs, [{ field: 'price', direction: 'asc' }, { field: 'surface', direction: 'desc' }])).toEqual([uuid(2), uuid(3), uuid(1)]);
    expect(sortedUuids(docs, [{ field: 'surface', direction: 'asc' }, { field: 'price', direction: 'desc' }])).toEqual([uuid(1), uuid(3), uuid(2)]);
  });

  it('breaks remaining ties by uuid ascending, whatever the direction', () => {
    const docs = [property(9), property(4), property(7)];
    expect(sortedUuids(docs, [{ field: 'price', direction: 'desc' }])).toEqual([uuid(4), uuid(7), uuid(9)]);
    expect(sortedUuids([unpriced, property(0, { price: null as unknown as number })], [{ field: 'price', direction: 'asc' }])).toEqual([uuid(0), uuid(2)]);
  });

  it('compares instants, not timestamp text, for createdAt and updatedAt', () => {
    const docs = [property(1, { createdAt: '2026-02-01T10:30:00+01:00' }), property(2, { createdAt: '2026-02-01T10:00:00+00:00' })];
    expect(sortedUuids(docs, [{ field: 'createdAt', direction: 'desc' }])).toEqual([uuid(2), uuid(1)]);
    const updated = [property(1, { updatedAt: '2026-02-01T10:30:00+01:00' }), property(2, { updatedAt: '2026-02-01T10:00:00+00:00' })];
    expect(sortedUuids(updated, [{ field: 'updatedAt', direction: 'asc' }])).toEqual([uuid(1), uuid(2)]);
  });

  it('sorts createdAt by the latest advert creation with sortMode=advert', () => {
    const oldWithNewAdvert = property(1, { createdAt: '2025-01-01T00:00:00+00:00', adverts: [anAdvert(), anAdvert({ createdAt: '2026-03-01T00:00:00+00:00' })] });
    const newer = property(2, { createdAt: '2026-02-15T00:00:00+00:00', adverts: [anAdvert({ createdAt: '2026-02-15T00:00:00+00:00' })] });
    const noAdvert = property(3, { adverts: [] });
    const order: OrderClause[] = [{ field: 'createdAt', direction: 'desc' }];
    expect(sortedUuids([oldWithNewAdvert, newer, noAdvert], order, 'property')).toEqual([uuid(2), uuid(3), uuid(1)]);
    expect(sortedUuids([noAdvert, newer, oldWithNewAdvert], order, 'advert')).toEqual([uuid(1), uuid(2), uuid(3)]);
  });
});
