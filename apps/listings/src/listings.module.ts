import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Module, type DynamicModule, type OnApplicationBootstrap, type BeforeApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { LISTINGS_INTEGRATION_STREAM } from '@immo/contracts';
import {
  LISTINGS_INTEGRATION_STREAM_SETTINGS,
  replicated,
  NatsRpcClient,
  exitForRestart,
  lastPublishedOutboxId,
  openOutboxPublisher,
  ServiceKitModule,
  openDocumentStore,
  openEventStore,
  storeReadiness,
  type ServiceConfig,
} from '@immo/service-kit';
import { GeoDirectoryClient } from './geo/geo-directory.client';
import { advertReadAhead } from './ingestion/advert-read-ahead';
import { IngestionGate } from './ingestion/ingestion-gate';
import { IngestionLease } from './ingestion/ingestion-lease';
import { IngestionRouter } from './ingestion/ingestion-router';
import { IngestionService } from './ingestion/ingestion.service';
import { ProjectionLagLimit } from './ingestion/projection-lag-limit';
import { ListingsController } from './listings.controller';
import { ListingsRuntime } from './listings-runtime';
import { registerListingsMetrics } from './listings.metrics';
import { createListingsProjections } from './projection/create-projections';
import { ADVERTS_COLLECTION, type AdvertRecord } from './projection/read-models';
import { PropertyQueries } from './queries/property-queries';

export interface ListingsModuleOptions {
  config: ServiceConfig;
  nats: NatsConnection;
  instance: string;
}

/** Starts the runtime once Nest is up; stops it before the stores close. */
class RuntimeLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(ListingsRuntime) private readonly runtime: ListingsRuntime) {}

  onApplicationBootstrap(): Promise<void> {
    return this.runtime.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.runtime.stop();
  }
}

/** This service's own files in the data directory (with any store): created when missing. */
function listingsDataDir(config: ServiceConfig): string {
  const dir = join(config.DATA_DIR, 'listings');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The identity this instance holds the ingestion lease under: kept in the data directory, so a
 * restart on the same data takes its own lease back at once.
 */
function instanceIdentity(config: ServiceConfig): string {
  const dir = listingsDataDir(config);
  const file = join(dir, 'instance-id');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    const id = `listings-${randomUUID()}`;
    writeFileSync(file, id);
    return id;
  }
}

/**
 * Appends ingestion may run ahead of the projection: a few seconds of projection work, so reads
 * and alerts trail ingestion by that much at most and memory stays bounded under any load.
 */
const MAX_UNPROJECTED_APPENDS = 2000;
/** Within the gateway's 15 s for a batch: a stuck projection answers "retry later" per item. */
const PROJECTION_WAIT_MS = 8000;

@Module({})
export class ListingsModule {
  static async register(options: ListingsModuleOptions): Promise<DynamicModule> {
    const { config, nats } = options;
    const eventStore = await openEventStore('listings', config, nats);
    const documentStore = await openDocumentStore('listings', config, nats);
    const rpc = new NatsRpcClient(nats, 2000);
    const geo = new GeoDirectoryClient(rpc);
    // With read models the replicas share, the ingestion leader writes them and the others follow.
    let leadsIngestion = (): boolean => false;
    let publishesOutbox = (): boolean => false;
    const { directory, runner, relay, searchIndex, documentTexts } = createListingsProjections({
      eventStore,
      store: documentStore,
      geo,
      publish: await openOutboxPublisher(nats, replicated(LISTINGS_INTEGRATION_STREAM_SETTINGS, config.NATS_REPLICAS)),
      searchIndexSnapshotFile: join(listingsDataDir(config), 'search-index.snapshot'),
      ...(config.DOCUMENT_STORE === 'embedded'
        ? {
            // Every replica fills an outbox of its own: the ingestion leader's announces, and the
            // others drop what the stream holds rather than announce it again later, or ahead of
            // the leader (a newer event before an older one would have the older one dropped).
            // "Leader" here is the lease surely held: a leader resumed after a pause past its
            // lease still holds it until its renewal fails, and meanwhile published alongside the
            // new leader.
            alreadyPublished: async () => (publishesOutbox() ? null : lastPublishedOutboxId(nats, LISTINGS_INTEGRATION_STREAM)),
            publishes: () => publishesOutbox(),
          }
        : {
            isWriter: () => leadsIngestion(),
            onRestartNeeded: (reason) => exitForRestart('listings', reason),
          }),
    });
    let runtime: ListingsRuntime | null = null;
    const lease = await IngestionLease.open(
      nats,
      instanceIdentity(config),
      {
        acquired: () => runtime?.onLeaseAcquired(),
        lost: () => runtime?.onLeaseLost(),
      },
      { replicas: config.NATS_REPLICAS },
    );
    leadsIngestion = () => lease.held;
    publishesOutbox = () => lease.surelyHeld();
    const ingestion = new IngestionService(eventStore, geo, directory.matcher, {
      projected: async (advertId) => {
        const record = await runner.advertRecord(advertId);
        return record ? { state: record.state, revision: record.revision, position: record.position } : null;
      },
      readAhead: advertReadAhead(documentStore.collection<AdvertRecord>(ADVERTS_COLLECTION)),
      lagLimit: new ProjectionLagLimit(MAX_UNPROJECTED_APPENDS, (position) => runner.waitFor(position), PROJECTION_WAIT_MS),
      leading: () => lease.surelyHeld(),
    });
    const gate = new IngestionGate();
    const router = new IngestionRouter(nats, ingestion, gate);
    runtime = new ListingsRuntime(eventStore, runner, relay, directory, ingestion, gate, router, lease, config.DOCUMENT_STORE === 'embedded', nats);
    const started = runtime;
    registerListingsMetrics(runtime);
    return {
      module: ListingsModule,
      imports: [
        ServiceKitModule.forService({
          service: 'listings',
          instance: options.instance,
          nats,
          readiness: [...storeReadiness(eventStore, documentStore), { name: 'projection', isReady: () => started.caughtUp() }],
          // The runtime stops first (RuntimeLifecycle), then the stores close.
          closables: [documentStore, eventStore],
        }),
      ],
      controllers: [ListingsController],
      providers: [
        { provide: ListingsRuntime, useValue: runtime },
        { provide: PropertyQueries, useValue: new PropertyQueries(documentStore, searchIndex, documentTexts) },
        RuntimeLifecycle,
      ],
    };
  }
}
