import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { RequestStrategy, type NatsConnection } from 'nats';
import { SERVICE_NAMES, pingReplySchema, pingSubject, rollCallSubject, type ServiceName } from '@immo/contracts';
import { NATS_CONNECTION, NatsRpcClient, RpcCallError, shutdownState } from '@immo/service-kit';
import { Public } from '../auth/public.decorator';
import { GATEWAY_INSTANCE } from './gateway-instance';
import { OwnMediaType } from '../http/own-media-type.decorator';

export const PING_TIMEOUT_MS = 1000;
/** The roll call of a service's replicas ends once none has answered for this long after the last. */
const ROLL_CALL_QUIET_MS = 250;

/**
 * Liveness says the process answers; readiness says it can serve: not shutting down, NATS
 * connected and each of the four services answering a ping within a second with its stores ready.
 * Readiness also names this gateway and each replica of each service that answered its roll call,
 * ready or not.
 */
@Controller('health')
@Public()
@OwnMediaType()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly rpc: NatsRpcClient,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
    @Inject(GATEWAY_INSTANCE) private readonly instance: string,
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
    return shutdownState.draining ? indicator.down({ instance: this.instance, message: 'shutting down' }) : indicator.up({ instance: this.instance });
  }

  private async checkNats(): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check('nats');
    return this.nats.isClosed() ? indicator.down({ message: 'not connected' }) : indicator.up({ server: this.nats.getServer() });
  }

  private async checkService(service: ServiceName): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(service);
    try {
      const [reply, replicas] = await Promise.all([
        this.rpc.request(pingSubject(service), {}, { timeoutMs: PING_TIMEOUT_MS }).then((answer) => pingReplySchema.parse(answer)),
        this.rollCall(service),
      ]);
      const stores = Object.fromEntries(reply.stores.map((store) => [store.name, store.ready ? 'up' : 'down']));
      const details = { instance: reply.instance, stores, replicas };
      return reply.ready ? indicator.up(details) : indicator.down(details);
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

  /** Every replica of the service that answers within the ping's time, by name: `ready` or `not ready`. */
  private async rollCall(service: ServiceName): Promise<Record<string, 'ready' | 'not ready'>> {
    const replicas: Record<string, 'ready' | 'not ready'> = {};
    try {
      const answers = await this.nats.requestMany(rollCallSubject(service), '{}', { strategy: RequestStrategy.JitterTimer, jitter: ROLL_CALL_QUIET_MS, maxWait: PING_TIMEOUT_MS });
      for await (const answer of answers) {
        const parsed = pingReplySchema.safeParse(answer.json());
        if (parsed.success) replicas[parsed.data.instance] = parsed.data.ready ? 'ready' : 'not ready';
      }
    } catch {
      // No replica answered (or NATS is away): the ping says so.
    }
    return replicas;
  }
}
