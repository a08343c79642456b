import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { evaluateReadiness, READINESS_CHECKS, type ReadinessCheck } from './readiness';

/**
 * HTTP probes of a service process for Kubernetes: liveness is cheap (the event loop answers),
 * readiness checks each store the service needs.
 */
@Controller('health')
export class ServiceHealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
  ) {}

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    // One indicator per store, so a failing probe names the store that is down.
    return this.health.check(
      this.checks.map((check) => async (): Promise<HealthIndicatorResult> => {
        const [result] = await evaluateReadiness([check]);
        const indicator = this.indicators.check(check.name);
        return result?.ready ? indicator.up() : indicator.down();
      }),
    );
  }
}
