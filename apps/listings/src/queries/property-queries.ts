import type { DocumentCollection, DocumentStore } from '@immo/document-store';
import { propertyDocumentInParisTime, propertyPageBytes, type PricePerMeterReply, type PropertyDocument } from '@immo/contracts';
import type { PropertyCriteria } from '@immo/property-criteria';
import { JsonText } from '@immo/service-kit';
import { PROPERTIES_COLLECTION, type PropertyRecord } from '../projection/read-models';
import { pricePerMeterStatistics } from '../search/price-per-meter-statistics';
import type { PropertySearchIndex } from '../search/property-search-index';
import type { DocumentTextCache } from './document-text-cache';

const encoder = new TextEncoder();

/**
 * Reads of the property read model: searches run on the in-memory index, which names the page's
 * properties; their documents are then read by id from the store (or their JSON from the cache)
 * and the page answered as JSON bytes (`propertyPageBytes`).
 */
export class PropertyQueries {
  private readonly properties: DocumentCollection<PropertyRecord>;

  constructor(
    store: DocumentStore,
    private readonly index: PropertySearchIndex,
    private readonly texts: DocumentTextCache,
  ) {
    this.properties = store.collection<PropertyRecord>(PROPERTIES_COLLECTION);
  }

  /**
   * The document as clients see it, times in Paris time. The conversion is made here, before a
   * page's cached text, so it costs once per document read rather than on every page served.
   */
  async byId(id: string): Promise<PropertyDocument | null> {
    const stored = (await this.properties.findById(id.toLowerCase()))?.document;
    return stored === undefined ? null : propertyDocumentInParisTime(stored);
  }

  siteCategories(): string[] {
    return this.index.siteCategories();
  }

  count(): Promise<number> {
    return this.properties.count({});
  }

  /** The page as a `ListPropertiesReply` in JSON. */
  async search(criteria: PropertyCriteria): Promise<JsonText> {
    const { total, ids } = this.index.search(criteria);
    return new JsonText(propertyPageBytes(total, await this.documentsJson(ids)));
  }

  /**
   * Properties similar to one (see similar-properties.ts), ranked by the index. `orderGiven`: the
   * client's `order[...]` ranks first; without it, the score does. Null when the property is unknown.
   */
  async similar(id: string, criteria: PropertyCriteria, orderGiven: boolean): Promise<JsonText | null> {
    const result = this.index.similar(id.toLowerCase(), criteria, orderGiven ? criteria.order : []);
    if (result === null) return null;
    return new JsonText(propertyPageBytes(result.total, await this.documentsJson(result.ids)));
  }

  pricePerMeter(criteria: PropertyCriteria): PricePerMeterReply {
    return pricePerMeterStatistics(this.index.matchingRows(criteria), criteria.aggregationInterval ?? 'month');
  }

  /** The JSON (UTF-8) of the documents of the given ids, in that order. */
  private async documentsJson(ids: string[]): Promise<Uint8Array[]> {
    // The page's documents not cached as JSON are read from the store: fetched together first,
    // so reading them one by one does not hold the event loop on the disk.
    await this.properties.prefetch(ids.filter((id) => this.texts.get(id) === undefined));
    const documents = await Promise.all(ids.map((id) => this.documentJson(id)));
    // A document is committed before its row reaches the index, so every id has its document.
    return documents.filter((json): json is Uint8Array => json !== null);
  }

  private async documentJson(id: string): Promise<Uint8Array | null> {
    const cached = this.texts.get(id);
    if (cached !== undefined) return cached;
    const version = this.texts.version();
    const document = await this.byId(id);
    if (document === null) return null;
    const json = encoder.encode(JSON.stringify(document));
    this.texts.remember(id, json, version);
    return json;
  }
}
