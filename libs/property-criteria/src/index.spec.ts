import { compareForOrder, matches, parsePropertyCriteria } from './index';
import { aPropertyDocument } from './property-document.fixture';

describe('public entry point', () => {
  it('parses a query, filters and sorts through the workspace alias', () => {
    const parsed = parsePropertyCriteria({ propertyTypes: ['0'], budgetMax: '300000', order: { price: 'asc' }, colour: 'blue' });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.violations));
    expect(parsed.ignored).toEqual(['colour']);
    const cheap = aPropertyDocument({ uuid: '00000000-0000-4000-8000-000000000002', price: 150_000, pricePerMeter: 2343.75 });
    const dear = aPropertyDocument({ uuid: '00000000-0000-4000-8000-000000000001' });
    const tooDear = aPropertyDocument({ uuid: '00000000-0000-4000-8000-000000000003', price: 400_000, pricePerMeter: 6250 });
    const found = [dear, tooDear, cheap].filter((doc) => matches(parsed.criteria, doc)).sort((a, b) => compareForOrder(parsed.criteria.order, a, b));
    expect(found.map((doc) => doc.price)).toEqual([150_000, 289_000]);
  });
});
