import { Module, type DynamicModule } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { ServiceKitModule, type ServiceConfig } from '@immo/service-kit';

export interface GeoModuleOptions {
  config: ServiceConfig;
  nats: NatsConnection;
  instance: string;
}

@Module({})
export class GeoModule {
  static async register(options: GeoModuleOptions): Promise<DynamicModule> {
    return {
      module: GeoModule,
      imports: [
        ServiceKitModule.forService({ service: 'geo', instance: options.instance, nats: options.nats, readiness: [], closables: [] }),
      ],
    };
  }
}
