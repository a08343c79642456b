import { Logger } from '@nestjs/common';
import type { DocumentCollection, DocumentStore } from '@immo/document-store';
import type { PropertyDocument } from '@immo/contracts';
import { buildPropertyDocument, leadAdvertOf, type AdvertState } from '../domain';
import type { GeoLookup } from '../geo/geo-directory.client';
import type { AdvertChange, AdvertStatesProjection } from './advert-states.projection';
import { PROPERTIES_COLLECTION, type PropertyRecord } from './read-models';
import type { UnitOfWork } from './unit-of-work';

const GEO_RETRY_MAX_MS = 5000;

/** A property document before and after one advert change. */
export interface PropertyChange {
  propertyId: string;
  before: PropertyDocument | null;
  after: PropertyDocument;
}

/**
 * Property documents: rebuilds the document of the property an advert belongs to whenever one of
 * its adverts changes. The document's revision is the event's global position.
 */
export class PropertyDocumentsProjection {
  static readonly NAME = 'property-documents';
  readonly name = PropertyDocumentsProjection.NAME;
  private readonly logger = new Logger('PropertyDocuments');
  private readonly properties: DocumentCollection<PropertyRecord>;

  constructor(
    store: DocumentStore,
    private readonly advertStates: AdvertStatesProjection,
    private readonly geo: GeoLookup,
    private readonly isStopped: () => boolean,
  ) {
    this.properties = store.collection<PropertyRecord>(PROPERTIES_COLLECTION);
  }

  async apply(change: AdvertChange, uow: UnitOfWork): Promise<PropertyChange | null> {
    const propertyId = change.next.propertyId;
    if (propertyId === null) return null;
    const members = await this.advertStates.membersOf(propertyId, uow);
    const document = await this.withGeoRetry(() => this.buildDocument(propertyId, members));
    const before = await uow.read<PropertyRecord>(PROPERTIES_COLLECTION.name, propertyId, (id) => this.properties.findById(id));
    uow.put(PROPERTIES_COLLECTION.name, {
      _id: propertyId,
      revision: change.event.position,
      document,
    } as PropertyRecord);
    return { propertyId, before: before?.document ?? null, after: document };
  }

  /** The stored document of the changed advert's property, as a change (when this projection is ahead). */
  async currentChange(change: AdvertChange, uow: UnitOfWork): Promise<PropertyChange | null> {
    const propertyId = change.next.propertyId;
    if (propertyId === null) return null;
    const record = await uow.read<PropertyRecord>(PROPERTIES_COLLECTION.name, propertyId, (id) => this.properties.findById(id));
    return record ? { propertyId, before: record.document, after: record.document } : null;
  }

  private async buildDocument(propertyId: string, adverts: AdvertState[]): Promise<PropertyDocument> {
    const lead = leadAdvertOf(adverts);
    const insee = lead?.commune.insee ?? null;
    const location = lead?.location ?? null;
    const city = insee ? await this.geo.cityByInsee(insee) : null;
    const point = location ?? city?.locations ?? null;
    const stations = point ? await this.geo.stationsNear(point.lat, point.lon) : [];
    return buildPropertyDocument({ propertyId, adverts, city, stations });
  }

  /** Geo being down must pause the projection, not produce documents without their city. */
  private async withGeoRetry<T>(operation: () => Promise<T>): Promise<T> {
    for (let delay = 100; ; delay = Math.min(delay * 2, GEO_RETRY_MAX_MS)) {
      try {
        return await operation();
      } catch (error) {
        if (this.isStopped()) throw error;
        this.logger.warn(`geo lookup failed (${String(error)}); retrying in ${delay} ms`);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }
}
