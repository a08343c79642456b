import { Logger } from '@nestjs/common';
import type { DocumentCollection, DocumentStore } from '@immo/document-store';
import type { AllSubscription, EventStore, RecordedEvent } from '@immo/event-store';
import type { ListingsIntegrationEvent, PropertyDocument } from '@immo/contracts';
import {
  ADVERT_EVENT_TYPES,
  ADVERT_STREAM_PREFIX,
  buildPropertyDocument,
  evolve,
  fromRecordedEvent,
  leadAdvertOf,
  toIntegrationEvent,
  webhookEventId,
  type AdvertDomainEvent,
  type AdvertState,
  type PropertyMatcher,
} from '../domain';
import type { GeoLookup } from '../geo/geo-directory.client';
import type { IntegrationPublisher } from './integration-publisher';
import {
  ADVERTS_COLLECTION,
  CHECKPOINTS_COLLECTION,
  PROPERTIES_COLLECTION,
  PROPERTY_PROJECTION_NAME,
  type AdvertRecord,
  type CheckpointRecord,
  type PropertyRecord,
} from './read-models';

const CHECKPOINT_EVERY_EVENTS = 2000;
const CHECKPOINT_IDLE_MS = 200;
const RETRY_MAX_MS = 5000;

export interface ProjectionDependencies {
  eventStore: EventStore;
  store: DocumentStore;
  geo: GeoLookup;
  publisher: IntegrationPublisher;
  matcher: PropertyMatcher;
}

/** Top-level document fields compared to tell subscribers what changed. */
const WATCHED_FIELDS: (keyof PropertyDocument)[] = [
  'title', 'description', 'propertyType', 'transactionType', 'publisherTypes', 'price', 'pricePerMeter', 'surface',
  'landSurface', 'room', 'bedroom', 'floor', 'elevator', 'furnished', 'expired', 'expiredAt', 'locations', 'pictures', 'city',
];

function changedFields(before: PropertyDocument, after: PropertyDocument): string[] {
  const changed = WATCHED_FIELDS.filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field])).map(String);
  if (before.adverts.length !== after.adverts.length) changed.push('adverts');
  return changed;
}

/**
 * Folds advert events, in global order, into advert states and property documents; then tells the
 * searches service through integration events. Applying an event twice is harmless: advert states
 * skip revisions they hold, documents are upserted with the event's position as revision.
 */
export class PropertyProjection {
  private readonly logger = new Logger('PropertyProjection');
  private readonly adverts: DocumentCollection<AdvertRecord>;
  private readonly properties: DocumentCollection<PropertyRecord>;
  private readonly checkpoints: DocumentCollection<CheckpointRecord>;
  /** Mirror of the adverts read model: a document rebuild needs every advert of its property. */
  private readonly states = new Map<string, AdvertState>();
  private readonly advertsByProperty = new Map<string, Set<string>>();
  private subscription: AllSubscription | null = null;
  private loop: Promise<void> | null = null;
  private position: number | null = null;
  private savedPosition: number | null = null;
  private sinceCheckpoint = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly waiters: { position: number; resolve: () => void }[] = [];
  private stopped = false;

  constructor(private readonly deps: ProjectionDependencies) {
    this.adverts = deps.store.collection<AdvertRecord>(ADVERTS_COLLECTION);
    this.properties = deps.store.collection<PropertyRecord>(PROPERTIES_COLLECTION);
    this.checkpoints = deps.store.collection<CheckpointRecord>(CHECKPOINTS_COLLECTION);
  }

  get checkpoint(): number | null {
    return this.position;
  }

  /** Loads the stored states and checkpoint, then follows the log from there. */
  async start(): Promise<void> {
    this.stopped = false;
    const checkpoint = await this.checkpoints.findById(PROPERTY_PROJECTION_NAME);
    this.position = checkpoint?.position ?? null;
    this.savedPosition = this.position;
    for (const record of await this.adverts.find({})) this.remember(record.state);
    this.logger.log(`starting after position ${this.position ?? 'none'} with ${this.states.size} adverts`);
    this.follow();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    await this.subscription?.unsubscribe();
    await this.loop?.catch(() => undefined);
    this.loop = null;
    await this.saveCheckpoint().catch(() => undefined);
  }

  /** Drops the read models and replays the whole log into them. */
  async rebuild(): Promise<void> {
    await this.stop();
    await Promise.all([this.adverts.clear(), this.properties.clear(), this.checkpoints.clear()]);
    this.states.clear();
    this.advertsByProperty.clear();
    this.position = null;
    this.savedPosition = null;
    this.logger.log('read models dropped; replaying the event log');
    await this.start();
  }

  /** Resolves once every event up to `position` is applied. */
  waitFor(position: number): Promise<void> {
    if (this.position !== null && this.position >= position) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ position, resolve }));
  }

  /** Current advert states (for the expiry sweep). */
  advertStates(): IterableIterator<AdvertState> {
    return this.states.values();
  }

  async status(): Promise<{ checkpoint: number | null; properties: number; adverts: number }> {
    return { checkpoint: this.position, properties: await this.properties.count({}), adverts: this.states.size };
  }

  private follow(): void {
    // Every event of the listings log is read (other streams only move the checkpoint), so the
    // checkpoint reaches the head of the log and `waitFor(position)` works for any append.
    const subscription = this.deps.eventStore.subscribeToAll(this.position !== null ? { fromPosition: this.position } : {});
    this.subscription = subscription;
    this.loop = (async () => {
      try {
        for await (const event of subscription) {
          await this.apply(event);
          if (this.stopped) break;
        }
      } catch (error) {
        if (this.stopped) return;
        this.logger.error(`subscription failed at position ${this.position ?? 'none'}: ${String(error)}; resuming`);
        await new Promise((r) => setTimeout(r, 1000));
        if (!this.stopped) this.follow();
      }
    })();
  }

  private remember(state: AdvertState): void {
    this.states.set(state.uuid, state);
    if (state.propertyId !== null) {
      let members = this.advertsByProperty.get(state.propertyId);
      if (!members) this.advertsByProperty.set(state.propertyId, (members = new Set()));
      members.add(state.uuid);
      this.deps.matcher.track(state);
    }
  }

  private async apply(event: RecordedEvent): Promise<void> {
    if (!event.streamName.startsWith(ADVERT_STREAM_PREFIX)) return this.advance(event.position);
    const advertId = event.streamName.slice(ADVERT_STREAM_PREFIX.length);
    const previous = this.states.get(advertId) ?? null;
    // `version` counts folded events: a revision below it is already in the state.
    if (previous && event.revision < previous.version) return this.advance(event.position);
    const domainEvent = fromRecordedEvent(event);
    const next = evolve(previous, domainEvent);
    this.remember(next);
    await this.adverts.upsert({ _id: advertId, revision: event.revision, state: next });

    if (next.propertyId !== null) {
      const outgoing = await this.projectProperty(next.propertyId, event, domainEvent, previous);
      for (const message of outgoing) await this.deps.publisher.publish(message);
    }
    await this.advance(event.position);
  }

  private async projectProperty(
    propertyId: string,
    event: RecordedEvent,
    domainEvent: AdvertDomainEvent,
    previous: AdvertState | null,
  ): Promise<ListingsIntegrationEvent[]> {
    const members = [...(this.advertsByProperty.get(propertyId) ?? [])]
      .map((id) => this.states.get(id))
      .filter((state): state is AdvertState => state !== undefined);
    const document = await this.withGeoRetry(() => this.buildDocument(propertyId, members));
    const before = await this.properties.findById(propertyId);
    await this.properties.upsert({ _id: propertyId, revision: event.position, document, createdAtMs: Date.parse(document.createdAt) });

    const at = domainEvent.data.at;
    const out: ListingsIntegrationEvent[] = [];
    if (!before) {
      out.push({ id: `property-created:${propertyId}`, type: 'property.created', propertyId, occurredAt: at, document });
    } else {
      const fields = changedFields(before.document, document);
      if (fields.length > 0) {
        out.push({ id: `property-changed:${propertyId}:${event.position}`, type: 'property.changed', propertyId, occurredAt: at, changedFields: fields, document });
      }
    }
    const advertId = event.streamName.slice(ADVERT_STREAM_PREFIX.length);
    if (domainEvent.type === ADVERT_EVENT_TYPES.assignedToProperty && (previous?.propertyId ?? null) === null) {
      // The advert's creation is announced once it belongs to a property (same commit as its publication).
      const created = this.states.get(advertId);
      out.push({
        id: webhookEventId(advertId, 0, 'property.ad.create'),
        type: 'advert.event',
        kind: 'property.ad.create',
        propertyId,
        advertId,
        occurredAt: created?.createdAt ?? at,
        adEvent: null,
        changedFields: [],
      });
    } else {
      const integration = toIntegrationEvent(advertId, event.revision, domainEvent);
      if (integration && integration.kind !== 'property.ad.create') {
        out.push({
          id: integration.id,
          type: 'advert.event',
          kind: integration.kind,
          propertyId,
          advertId,
          occurredAt: integration.occurredAt,
          adEvent: integration.adEvent,
          changedFields: integration.changedFields,
        });
      }
    }
    return out;
  }

  private async buildDocument(propertyId: string, adverts: AdvertState[]): Promise<PropertyDocument> {
    const lead = leadAdvertOf(adverts);
    const insee = lead?.commune.insee ?? null;
    const location = lead?.location ?? null;
    const city = insee ? await this.deps.geo.cityByInsee(insee) : null;
    const point = location ?? city?.locations ?? null;
    const stations = point ? await this.deps.geo.stationsNear(point.lat, point.lon) : [];
    return buildPropertyDocument({ propertyId, adverts, city, stations });
  }

  /** Geo being down must pause the projection, not produce documents without their city. */
  private async withGeoRetry<T>(operation: () => Promise<T>): Promise<T> {
    for (let delay = 100; ; delay = Math.min(delay * 2, RETRY_MAX_MS)) {
      try {
        return await operation();
      } catch (error) {
        if (this.stopped) throw error;
        this.logger.warn(`geo lookup failed (${String(error)}); retrying in ${delay} ms`);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  private async advance(position: number): Promise<void> {
    this.position = position;
    this.sinceCheckpoint++;
    if (this.sinceCheckpoint >= CHECKPOINT_EVERY_EVENTS) await this.saveCheckpoint();
    else this.scheduleIdleCheckpoint();
    if (this.waiters.length === 0) return;
    const due = this.waiters.filter((waiter) => position >= waiter.position);
    if (due.length === 0) return;
    this.waiters.splice(0, this.waiters.length, ...this.waiters.filter((waiter) => position < waiter.position));
    for (const waiter of due) waiter.resolve();
  }

  private scheduleIdleCheckpoint(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      this.saveCheckpoint().catch((error: unknown) => this.logger.error(`checkpoint failed: ${String(error)}`));
    }, CHECKPOINT_IDLE_MS);
    this.idleTimer.unref();
  }

  /** Integration events are acknowledged before the checkpoint moves past them. */
  private async saveCheckpoint(): Promise<void> {
    if (this.position === null || this.position === this.savedPosition) return;
    const position = this.position;
    await this.deps.publisher.settle();
    await this.checkpoints.upsert({ _id: PROPERTY_PROJECTION_NAME, revision: position, position });
    this.savedPosition = position;
    this.sinceCheckpoint = 0;
  }
}
