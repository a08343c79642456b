import type { DocumentStore } from '@immo/document-store';
import type { EventStore } from '@immo/event-store';
import { OutboxRelay, type PublishIntegrationEvent } from '@immo/service-kit';
import { PropertyMatcher } from '../domain';
import type { GeoLookup } from '../geo/geo-directory.client';
import { AdvertDirectory } from './advert-directory';
import { AdvertStatesProjection } from './advert-states.projection';
import { IntegrationOutboxProjection } from './integration-outbox.projection';
import { DEAD_LETTERS_COLLECTION, OUTBOX_COLLECTION } from './read-models';
import { ProjectionRunner, type ProjectionRunnerDependencies } from './projection-runner';
import { PropertyDocumentsProjection } from './property-documents.projection';
import { SearchIndexProjection } from './search-index.projection';
import { PropertySearchIndex } from '../search/property-search-index';
import { DocumentTextCache } from '../queries/document-text-cache';

export interface ListingsProjections {
  directory: AdvertDirectory;
  runner: ProjectionRunner;
  relay: OutboxRelay;
  /** Held in memory, current as of the last committed batch. */
  searchIndex: PropertySearchIndex;
  /** JSON text of recently served documents, dropped as the documents change. */
  documentTexts: DocumentTextCache;
}

/** The listings projections over one event store and one document store, and their outbox relay. */
export function createListingsProjections(deps: {
  eventStore: EventStore;
  store: DocumentStore;
  geo: GeoLookup;
  publish: PublishIntegrationEvent;
  /** Where the search index is snapshotted when the service stops (omitted: never). */
  searchIndexSnapshotFile?: string;
  /** Search rows (or documents) read per batch at start; tests use small batches. */
  searchIndexLoadPage?: number;
  /** With a store shared by replicas: whether this one writes the read models now (see `ProjectionRunner`). */
  isWriter?: () => boolean;
  onRestartNeeded?: ProjectionRunnerDependencies['onRestartNeeded'];
  /** Replicas with outboxes of their own: how far the stream already holds them, and whether this one publishes (see `OutboxCollections`). */
  alreadyPublished?: () => Promise<string | null>;
  publishes?: () => boolean;
}): ListingsProjections {
  const { eventStore, store, geo, publish } = deps;
  const directory = new AdvertDirectory(new PropertyMatcher());
  const advertStates = new AdvertStatesProjection(store, directory);
  const relay = new OutboxRelay(store, publish, {
    outbox: OUTBOX_COLLECTION,
    deadLetters: DEAD_LETTERS_COLLECTION,
    ...(deps.alreadyPublished ? { alreadyPublished: deps.alreadyPublished } : {}),
    ...(deps.publishes ? { publishes: deps.publishes } : {}),
  });
  const searchIndex = new PropertySearchIndex();
  const documentTexts = new DocumentTextCache();
  const runner: ProjectionRunner = new ProjectionRunner({
    eventStore,
    store,
    directory,
    advertStates,
    propertyDocuments: new PropertyDocumentsProjection(store, advertStates, geo, (): boolean => runner.stopping),
    outbox: new IntegrationOutboxProjection(store),
    searchIndex: new SearchIndexProjection(store, searchIndex, documentTexts, deps.searchIndexSnapshotFile ?? null, deps.searchIndexLoadPage),
    onOutboxWritten: (committed) => relay.kick(committed),
    ...(deps.isWriter ? { isWriter: deps.isWriter } : {}),
    ...(deps.onRestartNeeded ? { onRestartNeeded: deps.onRestartNeeded } : {}),
  });
  return { directory, runner, relay, searchIndex, documentTexts };
}
