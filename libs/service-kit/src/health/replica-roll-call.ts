import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection, Subscription } from 'nats';
import { rollCallSubject, type PingReply, type ServiceName } from '@immo/contracts';
import { NATS_CONNECTION } from '../bootstrap/nats-connection-token';
import { evaluateReadiness, READINESS_CHECKS, SERVICE_IDENTITY, type ReadinessCheck, type ServiceIdentity } from './readiness';

/**
 * Answers the roll call of its service's replicas: every replica, not one of a queue group, so
 * the gateway's readiness can name each replica and say whether it is ready.
 */
@Injectable()
export class ReplicaRollCall implements OnApplicationBootstrap, OnApplicationShutdown {
  private subscription: Subscription | null = null;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
    @Inject(SERVICE_IDENTITY) private readonly identity: ServiceIdentity,
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
  ) {}

  onApplicationBootstrap(): void {
    this.subscription = this.nats.subscribe(rollCallSubject(this.identity.service as ServiceName), {
      callback: (error, message) => {
        if (error) return;
        void evaluateReadiness(this.checks).then((stores) => {
          const reply: PingReply = { ...this.identity, ready: stores.every((store) => store.ready), stores };
          message.respond(JSON.stringify(reply));
        });
      },
    });
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
    this.subscription = null;
  }
}
