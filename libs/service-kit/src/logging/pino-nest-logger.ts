import type { LoggerService, LogLevel } from '@nestjs/common';
import type { Level, Logger as PinoLogger } from 'pino';

/** Most verbose first: the logger runs at the most verbose level Nest asks for. */
const VERBOSITY: readonly [LogLevel, Level][] = [
  ['verbose', 'trace'],
  ['debug', 'debug'],
  ['log', 'info'],
  ['warn', 'warn'],
  ['error', 'error'],
  ['fatal', 'fatal'],
];

const STACK = /^.+\n\s+at .+:\d+:\d+/;

/**
 * Nest's `LoggerService` over pino, so framework lines and the apps' `new Logger('Ingestion')`
 * calls become structured lines with `context: 'Ingestion'`. Arguments are read as Nest's own
 * console logger reads them: a trailing string is the context, and for errors a string before it
 * (or a lone argument that looks like a stack) is the stack.
 */
export class PinoNestLogger implements LoggerService {
  constructor(readonly pino: PinoLogger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params, false);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params, false);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params, true);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params, false);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params, false);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params, true);
  }

  setLogLevels(levels: LogLevel[]): void {
    const level = VERBOSITY.find(([nest]) => levels.includes(nest))?.[1];
    this.pino.level = level ?? 'silent';
  }

  private write(level: Level, message: unknown, params: unknown[], withStack: boolean): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const { context, stack, rest } = readParams(params, withStack);
    const fields: Record<string, unknown> = {};
    if (context !== undefined) fields['context'] = context;
    if (rest.length > 0) fields['params'] = rest;
    let text: string | undefined;
    if (message instanceof Error) {
      fields['err'] = message;
      text = message.message;
    } else if (typeof message === 'object' && message !== null) {
      Object.assign(fields, message);
    } else {
      text = String(message);
    }
    if (stack !== undefined) fields['err'] = { message: text, stack };
    this.pino[level](fields, text);
  }
}

function readParams(params: unknown[], withStack: boolean): { context?: string; stack?: string; rest: unknown[] } {
  if (params.length === 0) return { rest: [] };
  if (withStack && params.length === 1) {
    const only = params[0];
    if (typeof only === 'string' && STACK.test(only)) return { stack: only, rest: [] };
    return typeof only === 'string' ? { context: only, rest: [] } : { rest: only === undefined ? [] : [only] };
  }
  const last = params[params.length - 1];
  const context = typeof last === 'string' ? last : undefined;
  const rest = context === undefined ? params : params.slice(0, -1);
  if (withStack && rest.length > 0) {
    const candidate = rest[rest.length - 1];
    if (typeof candidate === 'string' || candidate === undefined) {
      return { ...(context !== undefined ? { context } : {}), ...(typeof candidate === 'string' ? { stack: candidate } : {}), rest: rest.slice(0, -1) };
    }
  }
  return { ...(context !== undefined ? { context } : {}), rest };
}
