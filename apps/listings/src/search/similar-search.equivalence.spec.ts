import type { PropertyDocument } from '@immo/contracts';
import { matches, type OrderClause } from '@immo/property-criteria';
import fc from 'fast-check';
import { criteriaOf } from './property-document.fixture';
import { neighbourPropertyOf, propertyDocumentOf, uuidPool } from './property-search.arbitraries';
import { PropertySearchIndex } from './property-search-index';
import { searchRowOf } from './search-row';
import { rankSimilar, similarBase, similarBaseCriteria } from './similar-properties';

const UUIDS = uuidPool(60);
const clause = fc.record({
  field: fc.constantFrom<OrderClause['field']>('createdAt', 'updatedAt', 'price', 'pricePerMeter', 'surface'),
  direction: fc.constantFrom<OrderClause['direction']>('asc', 'desc'),
});

/**
 * `PropertySearchIndex.similar` works on document numbers; the rules are `isSimilar`,
 * `similarityScore` and `rankSimilar` over the properties the base criteria select in the target's
 * commune or radius. Both must give the same total and page.
 */
describe('similar properties on the index against rankSimilar', () => {
  it('gives the same total and page for any target, order and page', () => {
    let withSimilar = 0;
    fc.assert(
      fc.property(
        fc.array(fc.oneof({ arbitrary: neighbourPropertyOf(UUIDS), weight: 4 }, { arbitrary: propertyDocumentOf(UUIDS), weight: 1 }), { minLength: 1, maxLength: 80, size: 'max' }),
        fc.nat(79),
        fc.array(clause, { maxLength: 2 }),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom(1, 3, 10),
        // Around the generated creation dates: before all, between them, after most.
        fc.option(fc.constantFrom('2026-01-01', '2026-02-01', '2026-02-20 12:00:00'), { nil: undefined }),
        // Advert price bounds around the generated advert prices, one side or both.
        fc.option(fc.constantFrom({ advertPriceMin: '180000' }, { advertPriceMax: '220000' }, { advertPriceMin: '200000', advertPriceMax: '289000' }), { nil: undefined }),
        (generated, pick, order, page, itemsPerPage, fromDate, advertPrice) => {
          const docs = new Map<string, PropertyDocument>();
          for (const doc of generated) docs.set(doc.uuid, doc);
          const index = new PropertySearchIndex();
          for (const doc of docs.values()) index.upsert(searchRowOf(doc));
          const targetUuid = [...docs.keys()][pick % docs.size] as string;
          const target = index.describe(targetUuid);
          if (!target) throw new Error('the target is indexed');
          const criteria = criteriaOf({ page: String(page), itemsPerPage: String(itemsPerPage), ...(fromDate !== undefined && { fromDate }), ...advertPrice });

          const base = similarBaseCriteria(similarBase(target, criteria));
          const candidates = [...docs.values()]
            .filter((doc) => matches(base, doc))
            .map((doc) => index.describe(doc.uuid))
            .filter((candidate): candidate is NonNullable<typeof candidate> => candidate !== undefined);
          const ranked = rankSimilar(target, candidates, order);
          const first = (page - 1) * itemsPerPage;

          const result = index.similar(targetUuid, criteria, order);
          expect(result?.total).toBe(ranked.length);
          if (ranked.length > 0) withSimilar++;
          expect(result?.ids).toEqual(ranked.slice(first, first + itemsPerPage).map((property) => property.uuid));
        },
      ),
      { numRuns: 300 },
    );
    // Not a vacuous agreement on empty results: many targets have similar properties to rank.
    expect(withSimilar).toBeGreaterThan(30);
  });

  it('answers null for a property it does not hold', () => {
    expect(new PropertySearchIndex().similar('00000000-0000-4000-8000-000000000000', criteriaOf({}), [])).toBeNull();
  });
});
