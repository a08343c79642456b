import type { DocumentCollection, DocumentStore } from '@immo/document-store';
import type { ListPropertiesReply, PricePerMeterReply, PropertyDocument } from '@immo/contracts';
import { parsePropertyCriteria, SIMILARITY, type PropertyCriteria } from '@immo/property-criteria';
import { PROPERTIES_COLLECTION, type PropertyRecord } from '../projection/read-models';
import { pricePerMeterStatistics } from '../search/price-per-meter-statistics';
import type { IndexedProperty, PropertySearchIndex } from '../search/property-search-index';
import { rankSimilar } from '../search/similar-properties';

/** Criteria with no filter but the defaults, the base the similar-properties searches narrow. */
const DEFAULT_CRITERIA: PropertyCriteria = (() => {
  const parsed = parsePropertyCriteria({});
  if (!parsed.ok) throw new Error('the empty query must be valid');
  return parsed.criteria;
})();

/**
 * Reads of the property read model: searches run on the in-memory index, which names the page's
 * properties; their documents are then read by id from the store.
 */
export class PropertyQueries {
  private readonly properties: DocumentCollection<PropertyRecord>;

  constructor(
    store: DocumentStore,
    private readonly index: PropertySearchIndex,
  ) {
    this.properties = store.collection<PropertyRecord>(PROPERTIES_COLLECTION);
  }

  async byId(id: string): Promise<PropertyDocument | null> {
    return (await this.properties.findById(id.toLowerCase()))?.document ?? null;
  }

  count(): Promise<number> {
    return this.properties.count({});
  }

  async search(criteria: PropertyCriteria): Promise<ListPropertiesReply> {
    const { total, ids } = this.index.search(criteria);
    return { items: await this.documents(ids), totalItems: total };
  }

  /**
   * Properties similar to one (see SIMILARITY): candidates from two index searches (its commune,
   * and a radius around it) narrowed to its transaction, type, price band and `fromDate`, then
   * ranked. `orderGiven`: the client's `order[...]` ranks first; without it, the score does.
   * Null when the property is unknown.
   */
  async similar(id: string, criteria: PropertyCriteria, orderGiven: boolean): Promise<ListPropertiesReply | null> {
    const target = this.index.describe(id.toLowerCase());
    if (!target) return null;
    const base: PropertyCriteria = {
      ...DEFAULT_CRITERIA,
      transactionType: target.transactionType as PropertyCriteria['transactionType'],
      propertyTypes: [target.propertyType as PropertyCriteria['propertyTypes'][number]],
      date: criteria.date,
      budget: target.price === null ? {} : { min: target.price * (1 - SIMILARITY.priceTolerance), max: target.price * (1 + SIMILARITY.priceTolerance) },
    };
    const candidates: IndexedProperty[] = [];
    if (target.cityId !== null) candidates.push(...this.index.matchingRows({ ...base, includedCities: [target.cityId] }));
    if (target.location !== null) candidates.push(...this.index.matchingRows({ ...base, point: target.location, radiusKm: SIMILARITY.radiusKm }));
    const ranked = rankSimilar(target, candidates, orderGiven ? criteria.order : []);
    const first = (criteria.page - 1) * criteria.itemsPerPage;
    const ids = ranked.slice(first, first + criteria.itemsPerPage).map((property) => property.uuid);
    return { items: await this.documents(ids), totalItems: ranked.length };
  }

  pricePerMeter(criteria: PropertyCriteria): PricePerMeterReply {
    return pricePerMeterStatistics(this.index.matchingRows(criteria), criteria.aggregationInterval ?? 'month');
  }

  /** Documents of the given ids, in that order. */
  private async documents(ids: string[]): Promise<PropertyDocument[]> {
    const documents = await Promise.all(ids.map((id) => this.byId(id)));
    // A document is committed before its row reaches the index, so every id has its document.
    return documents.filter((doc): doc is PropertyDocument => doc !== null);
  }
}
