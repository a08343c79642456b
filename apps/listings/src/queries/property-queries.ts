import type { DocumentCollection, DocumentStore } from '@immo/document-store';
import type { ListPropertiesReply, PropertyDocument } from '@immo/contracts';
import { PROPERTIES_COLLECTION, type PropertyRecord } from '../projection/read-models';

/** Reads of the property read model; filters come with the search issue. */
export class PropertyQueries {
  private readonly properties: DocumentCollection<PropertyRecord>;

  constructor(store: DocumentStore) {
    this.properties = store.collection<PropertyRecord>(PROPERTIES_COLLECTION);
  }

  async byId(id: string): Promise<PropertyDocument | null> {
    return (await this.properties.findById(id.toLowerCase()))?.document ?? null;
  }

  count(): Promise<number> {
    return this.properties.count({});
  }

  async list(query: { page: number; itemsPerPage: number }): Promise<ListPropertiesReply> {
    const [records, totalItems] = await Promise.all([
      this.properties.find({}, { sort: { createdAtMs: -1, _id: 1 }, skip: (query.page - 1) * query.itemsPerPage, limit: query.itemsPerPage }),
      this.properties.count({}),
    ]);
    return { items: records.map((record) => record.document), totalItems };
  }
}
