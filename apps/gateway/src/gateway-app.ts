import type { NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NatsConnection } from 'nats';
import type { GatewayConfig, PinoLogger } from '@immo/service-kit';
import { GatewayModule } from './app.module';
import { authenticateBeforeBody } from './auth/authenticate-before-body';
import { RequestAuthenticator } from './auth/request-authenticator';
import { installBodyDepthLimit } from './http/body-depth';
import { bodyLimits, installRouteBodyLimits } from './http/body-limits';
import { installContentNegotiation } from './http/content-negotiation';
import { gatewayFastifyOptions } from './http/http-server-options';
import { acceptJsonBodies } from './http/json-bodies';
import { stampRoutePolicies } from './http/route-policy';
import { installRequestTelemetry } from './telemetry/request-telemetry';

const CORS_OPTIONS = {
  origin: true,
  allowedHeaders: ['X-API-KEY', 'Content-Type', 'X-Request-Id', 'Last-Event-ID', 'Idempotency-Key', 'platformorigin'],
  exposedHeaders: ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'Retry-After', 'X-Ignored-Parameters'],
};

export interface GatewayAppOptions {
  nest?: NestApplicationOptions;
  /** Where access lines go: the process logger by default. */
  accessLog?: PinoLogger;
}

/**
 * The gateway application as `main.ts` runs it, not listening yet. The order of the steps
 * matters: the route policies are stamped and the body-limit `onRoute` hook added before Nest
 * registers its routes (in `listen`/`init`); the key check is registered after CORS so that it
 * runs after it (see `authenticateBeforeBody`), and content negotiation after the key check.
 */
export async function createGatewayApp(config: GatewayConfig, nats: NatsConnection, options: GatewayAppOptions = {}): Promise<NestFastifyApplication> {
  const module = GatewayModule.register(config, nats);
  stampRoutePolicies(module.controllers ?? []);
  const adapter = new FastifyAdapter(gatewayFastifyOptions(config));
  const fastify = adapter.getInstance();
  installRequestTelemetry(fastify, options.accessLog);
  installRouteBodyLimits(fastify, bodyLimits(config.BODY_LIMIT_BYTES));
  installBodyDepthLimit(fastify);
  acceptJsonBodies(fastify);
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, options.nest);
  app.enableCors(CORS_OPTIONS);
  authenticateBeforeBody(fastify, app.get(RequestAuthenticator));
  installContentNegotiation(fastify);
  return app;
}
