import { Logger, Module, type DynamicModule } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { ServiceKitModule, type GeoConfig } from '@immo/service-kit';
import { buildAutocompleteIndex, createPoiSource, getCityDirectory } from './domain';
import { AUTOCOMPLETE_INDEX, CITY_DIRECTORY, GeoQueriesController, POI_SOURCE } from './geo-queries.controller';

export interface GeoModuleOptions {
  config: GeoConfig;
  nats: NatsConnection;
  instance: string;
}

@Module({})
export class GeoModule {
  /** Reference data is loaded and indexed once, before the service subscribes to anything. */
  static async register(options: GeoModuleOptions): Promise<DynamicModule> {
    const started = Date.now();
    const directory = getCityDirectory();
    const autocompleteIndex = buildAutocompleteIndex(directory);
    const pois = createPoiSource(directory, { extractPath: options.config.GEO_POI_EXTRACT_PATH ?? null });
    new Logger('geo').log(`reference data: ${directory.entries.length} cities indexed in ${Date.now() - started} ms`);
    return {
      module: GeoModule,
      imports: [
        ServiceKitModule.forService({
          service: 'geo',
          instance: options.instance,
          nats: options.nats,
          readiness: [{ name: 'reference-data', isReady: async () => directory.entries.length > 0 }],
          closables: [],
        }),
      ],
      controllers: [GeoQueriesController],
      providers: [
        { provide: CITY_DIRECTORY, useValue: directory },
        { provide: AUTOCOMPLETE_INDEX, useValue: autocompleteIndex },
        { provide: POI_SOURCE, useValue: pois },
      ],
    };
  }
}
