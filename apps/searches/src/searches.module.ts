import { Module, type DynamicModule } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { ServiceKitModule, type ServiceConfig } from '@immo/service-kit';

export interface SearchesModuleOptions {
  config: ServiceConfig;
  nats: NatsConnection;
  instance: string;
}

@Module({})
export class SearchesModule {
  static async register(options: SearchesModuleOptions): Promise<DynamicModule> {
    return {
      module: SearchesModule,
      imports: [
        ServiceKitModule.forService({ service: 'searches', instance: options.instance, nats: options.nats, readiness: [], closables: [] }),
      ],
    };
  }
}
