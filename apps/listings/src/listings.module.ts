import { Inject, Logger, Module, type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import {
  NatsRpcClient,
  ServiceKitModule,
  openDocumentStore,
  openEventStore,
  storeReadiness,
  type ServiceConfig,
} from '@immo/service-kit';
import { PropertyMatcher } from './domain';
import { GeoDirectoryClient } from './geo/geo-directory.client';
import { IngestionService } from './ingestion/ingestion.service';
import { ListingsController } from './listings.controller';
import { IntegrationPublisher } from './projection/integration-publisher';
import { PropertyProjection } from './projection/property-projection';
import { PropertyQueries } from './queries/property-queries';

export interface ListingsModuleOptions {
  config: ServiceConfig;
  nats: NatsConnection;
  instance: string;
}

const EXPIRY_SWEEP_MS = 60_000;

/** Starts the projection once Nest is up and sweeps expiries; stops both before the stores close. */
class ProjectionLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private sweep: NodeJS.Timeout | null = null;

  constructor(
    @Inject(PropertyProjection) private readonly projection: PropertyProjection,
    @Inject(IngestionService) private readonly ingestion: IngestionService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.projection.start();
    this.sweep = setInterval(() => {
      this.ingestion
        .expireDue(this.projection.advertStates())
        .catch((error: unknown) => new Logger('ExpirySweep').error(String(error)));
    }, EXPIRY_SWEEP_MS);
    this.sweep.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    await this.projection.stop();
  }
}

@Module({})
export class ListingsModule {
  static async register(options: ListingsModuleOptions): Promise<DynamicModule> {
    const { config, nats } = options;
    const eventStore = await openEventStore('listings', config, nats);
    const documentStore = openDocumentStore('listings', config);
    const rpc = new NatsRpcClient(nats, 2000);
    const geo = new GeoDirectoryClient(rpc);
    const matcher = new PropertyMatcher();
    const publisher = await IntegrationPublisher.open(nats);
    const projection = new PropertyProjection({ eventStore, store: documentStore, geo, publisher, matcher });
    const ingestion = new IngestionService(eventStore, geo, matcher);
    return {
      module: ListingsModule,
      imports: [
        ServiceKitModule.forService({
          service: 'listings',
          instance: options.instance,
          nats,
          readiness: storeReadiness(eventStore, documentStore),
          // The projection stops first (ProjectionLifecycle), then the stores close.
          closables: [documentStore, eventStore],
        }),
      ],
      controllers: [ListingsController],
      providers: [
        { provide: PropertyProjection, useValue: projection },
        { provide: IngestionService, useValue: ingestion },
        { provide: PropertyQueries, useValue: new PropertyQueries(documentStore) },
        ProjectionLifecycle,
      ],
    };
  }
}
