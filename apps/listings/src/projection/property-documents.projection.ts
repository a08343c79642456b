import { Logger } from '@nestjs/common';
import type { DocumentCollection, DocumentStore } from '@immo/document-store';
import type { PropertyDocument } from '@immo/contracts';
import { buildPropertyDocument, leadAdvertOf, movedOnlyByCrawl, type AdvertState } from '../domain';
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
  /**
   * The change moved the document's crawl fields only (see `movedOnlyByCrawl`): nothing to
   * announce, and the property's search row stays as it was.
   */
  crawlOnly: boolean;
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
    const earlier = membersBefore(members, change);
    // The document before the change is built again rather than read back: the same adverts, the
    // changed one as it was. Decoding the stored document cost more than building it, and at
    // scale its pages were often not in memory.
    const [document, before] = await this.withGeoRetry(() =>
      Promise.all([this.buildDocument(propertyId, members), earlier.length === 0 ? null : this.buildDocument(propertyId, earlier)]),
    );
    uow.put(PROPERTIES_COLLECTION.name, {
      _id: propertyId,
      revision: change.event.position,
      document,
    } as PropertyRecord);
    return { propertyId, before, after: document, crawlOnly: movedOnlyByCrawl(change.domainEvent, before, document) };
  }

  /** The stored document of the changed advert's property, as a change (when this projection is ahead). */
  async currentChange(change: AdvertChange, uow: UnitOfWork): Promise<PropertyChange | null> {
    const propertyId = change.next.propertyId;
    if (propertyId === null) return null;
    const record = await uow.read<PropertyRecord>(PROPERTIES_COLLECTION.name, propertyId, (id) => this.properties.findById(id));
    return record ? { propertyId, before: record.document, after: record.document, crawlOnly: false } : null;
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

/** A property's adverts as they were before a change: the changed advert as it was, or without it when it was not a member yet. */
export function membersBefore(members: readonly AdvertState[], change: Pick<AdvertChange, 'advertId' | 'previous' | 'next'>): AdvertState[] {
  const earlier = members.filter((state) => state.uuid !== change.advertId);
  if (change.previous !== null && change.previous.propertyId === change.next.propertyId) earlier.push(change.previous);
  return earlier;
}
