import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { pingRequestSchema, type PingReply } from '@immo/contracts';
import { parseRpcPayload } from '../rpc/parse-rpc-payload';
import { evaluateReadiness, READINESS_CHECKS, SERVICE_IDENTITY, type ReadinessCheck, type ServiceIdentity } from './readiness';

/** Builds the controller answering `<service>.health.ping.v1` for one service. */
export function createPingController(subject: string): new (...args: never[]) => unknown {
  @Controller()
  class PingController {
    constructor(
      @Inject(SERVICE_IDENTITY) private readonly identity: ServiceIdentity,
      @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
    ) {}

    @MessagePattern(subject)
    async ping(@Payload() payload: unknown): Promise<PingReply> {
      parseRpcPayload(pingRequestSchema, payload ?? {});
      const stores = await evaluateReadiness(this.checks);
      return { ...this.identity, ready: stores.every((store) => store.ready), stores };
    }
  }
  return PingController;
}
