import type { DocumentCollection, DocumentStore } from '@immo/document-store';
import type { ListPropertiesReply, PropertyDocument } from '@immo/contracts';
import type { PropertyCriteria } from '@immo/property-criteria';
import { PROPERTIES_COLLECTION, type PropertyRecord } from '../projection/read-models';
import type { PropertySearchIndex } from '../search/property-search-index';

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
    const documents = await Promise.all(ids.map((id) => this.byId(id)));
    // A document is committed before its row reaches the index, so every id has its document.
    return { items: documents.filter((doc): doc is PropertyDocument => doc !== null), totalItems: total };
  }
}
