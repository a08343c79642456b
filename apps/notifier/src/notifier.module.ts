import { Module, type DynamicModule } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { ServiceKitModule, type ServiceConfig } from '@immo/service-kit';

export interface NotifierModuleOptions {
  config: ServiceConfig;
  nats: NatsConnection;
  instance: string;
}

@Module({})
export class NotifierModule {
  static async register(options: NotifierModuleOptions): Promise<DynamicModule> {
    return {
      module: NotifierModule,
      imports: [
        ServiceKitModule.forService({ service: 'notifier', instance: options.instance, nats: options.nats, readiness: [], closables: [] }),
      ],
    };
  }
}
