import { Module, type DynamicModule } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { ServiceKitModule, type ServiceConfig } from '@immo/service-kit';

export interface ListingsModuleOptions {
  config: ServiceConfig;
  nats: NatsConnection;
  instance: string;
}

@Module({})
export class ListingsModule {
  static async register(options: ListingsModuleOptions): Promise<DynamicModule> {
    return {
      module: ListingsModule,
      imports: [
        ServiceKitModule.forService({ service: 'listings', instance: options.instance, nats: options.nats, readiness: [], closables: [] }),
      ],
    };
  }
}
