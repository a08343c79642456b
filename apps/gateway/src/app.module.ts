import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import type { NatsConnection } from 'nats';
import { NATS_BUCKETS } from '@immo/contracts';
import { NATS_CONNECTION, NatsRpcClient, type GatewayConfig } from '@immo/service-kit';
import { AccountsController } from './accounts/accounts.controller';
import { MatchesController } from './alerts/matches.controller';
import { SearchAlertsController } from './alerts/search-alerts.controller';
import { WebhookAccountController } from './alerts/webhook-account.controller';
import { AccountKeys } from './auth/account-keys';
import { ApiKeyGuard } from './auth/api-key.guard';
import { AuthFailureLimiter } from './auth/auth-failure-limiter';
import { PublicRouteLimiter } from './http/rate-limit/public-route-limiter';
import { ApiKeyRegistry } from './auth/api-key.registry';
import { IssuedKeyIds } from './auth/issued-key-ids';
import { RequestAuthenticator } from './auth/request-authenticator';
import { EntrypointController } from './entrypoint/entrypoint.controller';
import { GeoController } from './geo/geo.controller';
import { ListingsController } from './listings/listings.controller';
import { SiteCategoriesController } from './listings/site-categories.controller';
import { DocsPageController } from './openapi/docs-page.controller';
import { OpenApiController } from './openapi/openapi.controller';
import { GATEWAY_INSTANCE, gatewayInstance } from './health/gateway-instance';
import { HealthController } from './health/health.controller';
import { ProblemFilter } from './http/problem.filter';
import { RateLimiter } from './http/rate-limit/rate-limiter';
import { ServiceClient } from './rpc/service-client';
import { EmailPreviewController } from './searches/email-preview.controller';
import { SearchesController } from './searches/searches.controller';
import { UnsubscribeController } from './searches/unsubscribe.controller';
import { registerKeyFilterMetrics } from './telemetry/key-filter-metrics';
import { MetricsController } from './telemetry/metrics.controller';

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');

@Module({})
export class GatewayModule {
  static register(config: GatewayConfig, nats: NatsConnection): DynamicModule {
    const rpc = new NatsRpcClient(nats, config.RPC_TIMEOUT_MS);
    return {
      module: GatewayModule,
      imports: [TerminusModule.forRoot({ errorLogStyle: 'pretty', logger: false })],
      controllers: [
        HealthController,
        EntrypointController,
        GeoController,
        ListingsController,
        SiteCategoriesController,
        SearchesController,
        SearchAlertsController,
        MatchesController,
        EmailPreviewController,
        WebhookAccountController,
        UnsubscribeController,
        AccountsController,
        OpenApiController,
        DocsPageController,
        MetricsController,
      ],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: GATEWAY_INSTANCE, useValue: gatewayInstance(config.REPLICA_NAME) },
        { provide: NATS_CONNECTION, useValue: nats },
        { provide: NatsRpcClient, useValue: rpc },
        {
          provide: IssuedKeyIds,
          useFactory: () => {
            // Loaded in the background: keys are looked up until it is done, so start waits for nothing.
            const ids = new IssuedKeyIds(rpc, nats);
            ids.start();
            registerKeyFilterMetrics(ids);
            return ids;
          },
        },
        { provide: AccountKeys, useFactory: (issued: IssuedKeyIds) => new AccountKeys(rpc, nats, issued), inject: [IssuedKeyIds] },
        {
          provide: RateLimiter,
          useFactory: () =>
            RateLimiter.open(
              nats,
              { enabled: config.RATE_LIMIT_REQUESTS > 0, requests: Math.max(1, config.RATE_LIMIT_REQUESTS), windowMs: config.RATE_LIMIT_WINDOW_MS, burst: config.RATE_LIMIT_BURST },
              gatewayInstance(config.REPLICA_NAME),
              config.NATS_REPLICAS,
            ),
        },
        {
          provide: PublicRouteLimiter,
          useFactory: async () =>
            new PublicRouteLimiter(
              await RateLimiter.open(
                nats,
                { enabled: config.PUBLIC_REQUESTS_PER_MINUTE > 0, requests: Math.max(1, config.PUBLIC_REQUESTS_PER_MINUTE), windowMs: 60_000, burst: config.PUBLIC_REQUESTS_BURST },
                gatewayInstance(config.REPLICA_NAME),
                config.NATS_REPLICAS,
                NATS_BUCKETS.gatewayPublicRequests,
              ),
            ),
        },
        {
          provide: AuthFailureLimiter,
          useFactory: async () =>
            new AuthFailureLimiter(
              await RateLimiter.open(
                nats,
                { enabled: config.AUTH_FAILURES_PER_MINUTE > 0, requests: Math.max(1, config.AUTH_FAILURES_PER_MINUTE), windowMs: 60_000, burst: Math.max(1, config.AUTH_FAILURES_PER_MINUTE) },
                gatewayInstance(config.REPLICA_NAME),
                config.NATS_REPLICAS,
                NATS_BUCKETS.gatewayAuthFailures,
              ),
            ),
        },
        {
          provide: ApiKeyRegistry,
          useValue: new ApiKeyRegistry({
            apiKeys: config.API_KEYS.split(',').map((k) => k.trim()),
            dataDir: config.DATA_DIR,
            ...(config.ADMIN_API_KEY ? { adminKey: config.ADMIN_API_KEY } : {}),
          }),
        },
        ServiceClient,
        RequestAuthenticator,
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_FILTER, useClass: ProblemFilter },
      ],
    };
  }
}
