import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Violation } from '@immo/contracts';
import { PROBLEM_CONTENT_TYPE, ProblemException, problemBody, type ProblemBody } from './problem';

const logger = new Logger('HTTP');

/** Fastify's content-type parser errors (`FST_ERR_CTP_EMPTY_JSON_BODY`, `FST_ERR_CTP_INVALID_JSON_BODY`, …). */
const BODY_PARSER_ERROR_PREFIX = 'FST_ERR_CTP_';
/** How a violation names the request body as a whole. */
export const BODY_PATH = '(body)';

function bodyViolation(message: string): Violation[] {
  return [{ propertyPath: BODY_PATH, message }];
}

/** Maps any error to the problem shape; only unexpected errors are logged, with their stack. */
export function toProblem(error: unknown): ProblemBody {
  if (error instanceof ProblemException) return problemBody(error.status, error.detail, error.violations);
  if (error instanceof HttpException) {
    const response = error.getResponse();
    const message =
      typeof response === 'object' && response !== null && 'message' in response
        ? String((response as { message: unknown }).message)
        : error.message;
    // Nest hands Fastify's own client errors over as plain HttpExceptions, without their code; at
    // 400 those are a body Fastify could not read (empty, not JSON, not of its Content-Length).
    const unreadableBody = error.constructor === HttpException && error.getStatus() === 400;
    return problemBody(error.getStatus(), message, unreadableBody ? bodyViolation(message) : undefined);
  }
  // Errors raised by Fastify itself (body too large, malformed JSON) carry their status.
  const fastifyStatus = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof fastifyStatus === 'number' && fastifyStatus >= 400 && fastifyStatus < 500) {
    const detail = fastifyStatus === 413 ? 'The request body is too large.' : (error as Error).message;
    // A body that could not be read (empty, not JSON) is the one bad input there is to name.
    const unreadableBody = fastifyStatus === 400 && String((error as { code?: unknown }).code ?? '').startsWith(BODY_PARSER_ERROR_PREFIX);
    return problemBody(fastifyStatus, detail, unreadableBody ? bodyViolation(detail) : undefined);
  }
  logger.error(error instanceof Error ? error.stack ?? error.message : String(error));
  return problemBody(500, 'An unexpected error occurred.');
}

/** Terminus answers a failed readiness check with its own body, which probes and dashboards read. */
function healthCheckBody(error: unknown): object | null {
  if (!(error instanceof HttpException) || error.getStatus() !== 503) return null;
  const response = error.getResponse();
  return typeof response === 'object' && response !== null && 'details' in response ? response : null;
}

@Catch()
export class ProblemFilter implements ExceptionFilter {
  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const health = healthCheckBody(error);
    if (health) {
      void reply.status(503).send(health);
      return;
    }
    const body = toProblem(error);
    void reply.status(body.status).header('content-type', PROBLEM_CONTENT_TYPE).send(body);
  }
}
