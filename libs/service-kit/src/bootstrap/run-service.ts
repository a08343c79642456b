import { hostname } from 'node:os';
import { Logger, type DynamicModule, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { queueGroupOf, type ServiceName } from '@immo/contracts';
import type { ServiceConfig } from '../config/common-config';
import { natsTransportOptions } from './nats-transport-options';

const LEVELS: LogLevel[] = ['error', 'warn', 'log', 'debug', 'verbose'];

export function logLevelsUpTo(level: LogLevel): LogLevel[] {
  return LEVELS.slice(0, LEVELS.indexOf(level) + 1);
}

export function instanceId(service: ServiceName): string {
  return `${service}@${hostname()}:${process.pid}`;
}

/**
 * Starts one service: a NATS microservice in its queue group (replicas share the work) plus an
 * optional HTTP listener for Kubernetes probes when HEALTH_PORT is set.
 */
export async function runService(service: ServiceName, config: ServiceConfig, rootModule: DynamicModule): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(rootModule, new FastifyAdapter(), {
    logger: logLevelsUpTo(config.LOG_LEVEL),
    bufferLogs: false,
  });
  app.connectMicroservice<MicroserviceOptions>(natsTransportOptions(service, config), { inheritAppConfig: true });
  app.enableShutdownHooks();
  await app.startAllMicroservices();
  if (config.HEALTH_PORT > 0) {
    await app.listen(config.HEALTH_PORT, '0.0.0.0');
  } else {
    await app.init();
  }
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

/** Runs a process entry point; any start-up failure prints one line and exits non-zero. */
export function runMain(name: string, main: () => Promise<unknown>): void {
  exitWithParent();
  main().catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`[${name}] failed to start: ${message}\n`);
    process.exit(1);
  });
}
