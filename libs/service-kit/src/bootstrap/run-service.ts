import { hostname } from 'node:os';
import { Logger, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { queueGroupOf, type ServiceName } from '@immo/contracts';
import type { ServiceConfig } from '../config/common-config';
import { processNestLogger } from '../logging/logger';
import { HelperThreadPriority } from '../scheduling/helper-thread-priority';
import { NatsRequestContextInterceptor } from '../logging/nats-request-context.interceptor';
import type { RequestIdPassing } from '../logging/request-context';
import { DrainingNatsServer } from '../nats/draining-nats-server';
import { installGracefulShutdown } from './graceful-shutdown';
import { natsTransportOptions } from './nats-transport-options';

/**
 * How this replica names itself in readiness, logs and leases: its `REPLICA_NAME` (a pod's name
 * in Kubernetes, `listings-2` under `REPLICAS=2 npm start`) or the service's, then host and pid.
 */
export function instanceId(service: ServiceName, config: { REPLICA_NAME?: string | undefined } = {}): string {
  return `${config.REPLICA_NAME ?? service}@${hostname()}:${process.pid}`;
}

/**
 * Starts one service: a NATS microservice in its queue group (replicas share the work) plus an
 * optional HTTP listener for Kubernetes probes and Prometheus (`/metrics`) when HEALTH_PORT is set.
 * Its helper threads run HELPER_THREAD_NICE below its event loop (see `HelperThreadPriority`).
 * Logs go through the logger `configureLogging` set up; each NATS request's handler runs bound to
 * the caller's request id, unless the service passes ids explicitly (`requestIds: 'explicit'`).
 *
 * On SIGTERM: readiness answers 503, the service stops taking NATS requests and waits for those
 * under way (half the shutdown budget at most), then Nest's shutdown runs: modules stop their
 * background work (`beforeApplicationShutdown`: consumers, projections, deliveries), the
 * listeners close, and the stores and the NATS connection close last (`onApplicationShutdown`).
 */
export async function runService(
  service: ServiceName,
  config: Pick<ServiceConfig, 'NATS_URL' | 'NATS_CONNECT_TIMEOUT_MS' | 'HEALTH_PORT' | 'SHUTDOWN_TIMEOUT_MS'> & Partial<Pick<ServiceConfig, 'HELPER_THREAD_NICE'>>,
  rootModule: DynamicModule,
  options: { requestIds?: RequestIdPassing } = {},
): Promise<NestFastifyApplication> {
  // Without the setting (services started inside a test runner's process) the threads are left alone.
  new HelperThreadPriority(config.HELPER_THREAD_NICE ?? 0).start();
  const app = await NestFactory.create<NestFastifyApplication>(rootModule, new FastifyAdapter(), {
    logger: processNestLogger(),
    bufferLogs: false,
  });
  // Global to the app, and the microservice inherits the app's configuration.
  app.useGlobalInterceptors(new NatsRequestContextInterceptor(options.requestIds));
  const server = new DrainingNatsServer(natsTransportOptions(service, config).options ?? {});
  app.connectMicroservice<MicroserviceOptions>({ strategy: server }, { inheritAppConfig: true });
  installGracefulShutdown(service, config.SHUTDOWN_TIMEOUT_MS, async () => {
    await server.drainRequests(config.SHUTDOWN_TIMEOUT_MS / 2);
    await app.close();
  });
  // Start-up hooks first (loading in-memory indexes from the stores), NATS handlers after: a
  // replica joins its queue group only once it can answer, instead of answering from a half-loaded
  // index while it starts. (The probes' HTTP listener opens with the hooks done too; Kubernetes'
  // startup probe allows for that.)
  if (config.HEALTH_PORT > 0) {
    await app.listen(config.HEALTH_PORT, '0.0.0.0');
  } else {
    await app.init();
  }
  await app.startAllMicroservices();
  new Logger(service).log(`${service} ready on ${config.NATS_URL} (queue ${queueGroupOf(service)})`);
  return app;
}

/**
 * When a launcher (npm start, the end-to-end tests) names itself in EXIT_WITH_PARENT_PID, the
 * process exits once that launcher is gone, so a killed launcher leaves no app behind.
 */
function exitWithParent(): void {
  const parent = Number(process.env['EXIT_WITH_PARENT_PID']);
  if (!Number.isInteger(parent) || parent <= 1) return;
  setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch {
      process.kill(process.pid, 'SIGTERM');
    }
  }, 1000).unref();
}

/**
 * Ends the process after a failure it cannot get over in place (read models that failed a
 * commit): its supervisor (Kubernetes, compose's `restart: unless-stopped`) starts a new one,
 * which replays from the stored checkpoints. Said on stderr first, synchronously.
 */
export function exitForRestart(name: string, reason: string): never {
  process.stderr.write(`[${name}] ${reason}; exiting, to be restarted\n`);
  process.exit(1);
}

/** Runs a process entry point; any start-up failure prints one line and exits non-zero. */
export function runMain(name: string, main: () => Promise<unknown>): void {
  exitWithParent();
  main().catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`[${name}] failed to start: ${message}\n`);
    process.exit(1);
  });
}
