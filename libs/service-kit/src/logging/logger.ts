import { hostname } from 'node:os';
import { Logger as NestLogger, type LogLevel } from '@nestjs/common';
import { pino, type DestinationStream, type Level, type Logger as PinoLogger } from 'pino';
import { build as prettyStream } from 'pino-pretty';
import { PinoNestLogger } from './pino-nest-logger';
import { currentRequestContext } from './request-context';

export type { PinoLogger };

/** `json`: one JSON object per line, for log collectors. `pretty`: coloured text for people. */
export type LogFormat = 'json' | 'pretty';

/** Nest's level names (what `LOG_LEVEL` takes) as pino levels. */
const PINO_LEVELS: Record<LogLevel, Level> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

export function pinoLevelOf(level: LogLevel): Level {
  return PINO_LEVELS[level];
}

/** `LOG_FORMAT` when set; otherwise pretty for a terminal, JSON for anything else (files, pipes, collectors). */
export function resolveLogFormat(format: LogFormat | undefined, isTTY: boolean): LogFormat {
  return format ?? (isTTY ? 'pretty' : 'json');
}

/**
 * Fields never written out, whatever is logged: API keys, authorization headers, webhook secrets
 * and signatures, unsubscribe tokens, and request or webhook bodies. Nothing logs these on purpose
 * (request lines carry the route pattern, not the URL or headers); this is the safety net for an
 * object logged whole.
 */
export const REDACTED_LOG_PATHS: readonly string[] = [
  'apiKey',
  '*.apiKey',
  '["x-api-key"]',
  '*["x-api-key"]',
  '*.*["x-api-key"]',
  'authorization',
  '*.authorization',
  '*.*.authorization',
  'secret',
  '*.secret',
  '*.*.secret',
  'secrets',
  '*.secrets',
  '["webhook-signature"]',
  '*["webhook-signature"]',
  '*.*["webhook-signature"]',
  'searchToken',
  '*.searchToken',
  'token',
  '*.token',
  'payload',
  '*.payload',
  'body',
  '*.body',
];

export interface LoggerOptions {
  /** The app writing (the `name` field of each line). */
  name: string;
  level: LogLevel;
  format: LogFormat;
  /** Where lines go; stdout by default. */
  destination?: DestinationStream;
}

/** Returned by the mixin when no request is under way: no object allocated per line. */
const NO_FIELDS = Object.freeze({});

/**
 * A pino logger: every line names the app, and carries `requestId` when written while handling a
 * request (see `runInRequestContext`).
 */
export function createLogger(options: LoggerOptions): PinoLogger {
  const pretty = options.format === 'pretty';
  const destination: DestinationStream = pretty
    ? prettyStream({
        destination: options.destination ?? 1,
        sync: true,
        // pino-pretty colours a terminal that supports it; never a stream handed in (tests).
        ...(options.destination ? { colorize: false } : {}),
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,context',
        messageFormat: '{if context}[{context}] {end}{msg}',
      })
    : (options.destination ?? pino.destination({ dest: 1, sync: true }));
  return pino(
    {
      name: options.name,
      level: pinoLevelOf(options.level),
      base: { pid: process.pid, hostname: hostname() },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Level names rather than numbers: what collectors and people search for.
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => currentRequestContext()?.logFields ?? NO_FIELDS,
      // pino's default merge writes into the mixin's object, which is shared: copy it instead.
      mixinMergeStrategy: (mergeObject, mixinObject) => (mixinObject === NO_FIELDS ? mergeObject : { ...mixinObject, ...mergeObject }),
      redact: { paths: [...REDACTED_LOG_PATHS], censor: '[redacted]' },
    },
    destination,
  );
}

let processLoggerInstance: PinoLogger | null = null;
let nestLoggerInstance: PinoNestLogger | null = null;

/**
 * Sets up this process's logging from its configuration, once at boot and before anything logs:
 * pino writes every line, and Nest's `Logger` (framework lines and `new Logger('X')` in the apps)
 * goes through it with `X` as `context`. Returns the logger to hand to `NestFactory.create`.
 */
export function configureLogging(
  name: string,
  config: { LOG_LEVEL: LogLevel; LOG_FORMAT?: LogFormat | undefined },
  options: { isTTY?: boolean; destination?: DestinationStream } = {},
): PinoNestLogger {
  const format = resolveLogFormat(config.LOG_FORMAT, options.isTTY ?? process.stdout.isTTY === true);
  processLoggerInstance = createLogger({ name, level: config.LOG_LEVEL, format, ...(options.destination ? { destination: options.destination } : {}) });
  nestLoggerInstance = new PinoNestLogger(processLoggerInstance);
  NestLogger.overrideLogger(nestLoggerInstance);
  return nestLoggerInstance;
}

/** The logger `configureLogging` set up; before that (tests, tools), JSON at `log` level on stdout. */
export function processLogger(): PinoLogger {
  processLoggerInstance ??= createLogger({ name: 'app', level: 'log', format: 'json' });
  return processLoggerInstance;
}

/** Nest's view of `processLogger()`, for `NestFactory.create({ logger })`. */
export function processNestLogger(): PinoNestLogger {
  nestLoggerInstance ??= new PinoNestLogger(processLogger());
  return nestLoggerInstance;
}
