import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { NatsConnection } from 'nats';
import { SERVICE_NAMES, pingReplySchema, pingSubject, type ServiceName } from '@immo/contracts';
import { NATS_CONNECTION, NatsRpcClient, RpcCallError, shutdownState } from '@immo/service-kit';
import { Public } from '../auth/public.decorator';

export const PING_TIMEOUT_MS = 1000;

/**
 * Liveness says the process answers; readiness says it can serve: not shutting down, NATS
 * connected and each of the four services answering a ping within a second with its stores ready.
 */
@Controller('health')
@Public()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly rpc: NatsRpcClient,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
  ) {}

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.checkAcceptingWork(), () => this.checkNats(), ...SERVICE_NAMES.map((service) => () => this.checkService(service))]);
  }

  /** Down from the moment SIGTERM arrives: the load balancer sends new requests elsewhere. */
  private async checkAcceptingWork(): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check('accepting-work');
    return shutdownState.draining ? indicator.down({ message: 'shutting down' }) : indicator.up();
  }

  private async checkNats(): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check('nats');
    return this.nats.isClosed() ? indicator.down({ message: 'not connected' }) : indicator.up({ server: this.nats.getServer() });
  }

  private async checkService(service: ServiceName): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(service);
    try {
      const reply = pingReplySchema.parse(await this.rpc.request(pingSubject(service), {}, { timeoutMs: PING_TIMEOUT_MS }));
      const stores = Object.fromEntries(reply.stores.map((store) => [store.name, store.ready ? 'up' : 'down']));
      return reply.ready ? indicator.up({ instance: reply.instance, stores }) : indicator.down({ instance: reply.instance, stores });
    } catch (error) {
      const message =
        error instanceof RpcCallError && error.kind === 'unavailable'
          ? 'no instance is answering'
          : error instanceof RpcCallError && error.kind === 'timeout'
            ? `no answer within ${PING_TIMEOUT_MS} ms`
            : error instanceof Error
              ? error.message
              : String(error);
      return indicator.down({ message });
    }
  }
}
