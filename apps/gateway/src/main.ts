import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from '@nestjs/common';
import { configureLogging, connectNats, gatewayConfigSchema, HelperThreadPriority, installGracefulShutdown, loadConfig, runMain } from '@immo/service-kit';
import { endLiveStreams } from './alerts/live-stream';
import { GatewayModule } from './app.module';
import { installBodyDepthLimit } from './http/body-depth';
import { gatewayFastifyOptions } from './http/http-server-options';
import { installRequestTelemetry } from './telemetry/request-telemetry';

runMain('gateway', async () => {
  const config = loadConfig('gateway', gatewayConfigSchema);
  const logger = configureLogging('gateway', config);
  new HelperThreadPriority(config.HELPER_THREAD_NICE).start();
  const nats = await connectNats(config, { name: 'gateway', principal: 'gateway' });
  const adapter = new FastifyAdapter(gatewayFastifyOptions(config));
  installRequestTelemetry(adapter.getInstance());
  installBodyDepthLimit(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.register(config, nats), adapter, {
    logger,
  });
  // SIGTERM: readiness 503, open event streams end (clients reconnect elsewhere with Last-Event-ID),
  // the listener stops taking connections and waits for the requests under way, NATS drains.
  installGracefulShutdown('gateway', config.SHUTDOWN_TIMEOUT_MS, async () => {
    endLiveStreams();
    await app.close();
    await nats.drain().catch(() => undefined);
  });
  app.enableCors({
    origin: true,
    allowedHeaders: ['X-API-KEY', 'Content-Type', 'X-Request-Id', 'Last-Event-ID', 'Idempotency-Key', 'platformorigin'],
    exposedHeaders: ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'Retry-After', 'X-Ignored-Parameters'],
  });
  await app.listen(config.PORT, config.HOST);
  new Logger('gateway').log(`listening on http://${config.HOST}:${config.PORT}`);
});
