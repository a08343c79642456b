import { Inject, Module, type DynamicModule, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { NatsConnection } from 'nats';
import { pingSubject, type ServiceName } from '@immo/contracts';
import { NatsRpcClient } from '../nats/nats-rpc-client';
import { createPingController } from '../health/ping.controller';
import { READINESS_CHECKS, SERVICE_IDENTITY, type ReadinessCheck } from '../health/readiness';
import { MetricsController } from '../health/metrics.controller';
import { ServiceHealthController } from '../health/service-health.controller';
import { shutdownState } from './graceful-shutdown';
import { NATS_CONNECTION } from './nats-connection-token';
import { ReplicaRollCall } from '../health/replica-roll-call';

export { NATS_CONNECTION } from './nats-connection-token';
export const CLOSE_ON_SHUTDOWN = Symbol('CLOSE_ON_SHUTDOWN');

export interface Closable {
  close(): Promise<void>;
}

export interface ServiceKitOptions {
  service: ServiceName;
  instance: string;
  nats: NatsConnection;
  rpcTimeoutMs?: number;
  /** Stores and dependencies reported by health; NATS is always included. */
  readiness: ReadinessCheck[];
  /** Closed in this order when the process stops (stores before the NATS connection). */
  closables: Closable[];
}

class ShutdownCloser implements OnApplicationShutdown {
  constructor(@Inject(CLOSE_ON_SHUTDOWN) private readonly closables: Closable[]) {}

  async onApplicationShutdown(): Promise<void> {
    for (const closable of this.closables) {
      await closable.close().catch(() => undefined);
    }
  }
}

/** What every service process shares: identity, NATS, RPC client, health ping, HTTP probes and metrics. */
@Module({})
export class ServiceKitModule {
  static forService(options: ServiceKitOptions): DynamicModule {
    const natsCheck: ReadinessCheck = {
      name: 'nats',
      isReady: async () => !options.nats.isClosed() && options.nats.info !== undefined,
    };
    const providers: Provider[] = [
      { provide: SERVICE_IDENTITY, useValue: { service: options.service, instance: options.instance } },
      { provide: NATS_CONNECTION, useValue: options.nats },
      // Not ready once stopping: work goes to the other replicas while this one finishes its own.
      { provide: READINESS_CHECKS, useValue: [{ name: 'accepting-work', isReady: async () => !shutdownState.draining }, natsCheck, ...options.readiness] },
      { provide: NatsRpcClient, useValue: new NatsRpcClient(options.nats, options.rpcTimeoutMs ?? 2000) },
      {
        provide: CLOSE_ON_SHUTDOWN,
        useValue: [...options.closables, { close: () => options.nats.drain().catch(() => undefined) }],
      },
      ShutdownCloser,
      ReplicaRollCall,
    ];
    return {
      module: ServiceKitModule,
      global: true,
      imports: [TerminusModule],
      controllers: [createPingController(pingSubject(options.service)), ServiceHealthController, MetricsController],
      providers,
      exports: [SERVICE_IDENTITY, NATS_CONNECTION, NatsRpcClient, READINESS_CHECKS],
    };
  }
}
