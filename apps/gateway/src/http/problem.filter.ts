import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Violation } from '@immo/contracts';
import { describeBytes } from './body-limits';
import { PROBLEM_CONTENT_TYPE, ProblemException, problemBody, type ProblemBody } from './problem';

const logger = new Logger('HTTP');

/** Fastify's content-type parser errors (`FST_ERR_CTP_EMPTY_JSON_BODY`, `FST_ERR_CTP_INVALID_JSON_BODY`, …). */
const BODY_PARSER_ERROR_PREFIX = 'FST_ERR_CTP_';
/** How a violation names the request body as a whole. */
export const BODY_PATH = '(body)';

function bodyViolation(message: string): Violation[] {
  return [{ propertyPath: BODY_PATH, message }];
}

/** What a 413 says: the limit of the route when known (each route has its own, see `body-limits.ts`). */
function tooLargeDetail(bodyLimit: number | undefined): string {
  return bodyLimit === undefined ? 'The request body is too large.' : `The request body is too large: this operation takes at most ${describeBytes(bodyLimit)} (${bodyLimit} bytes).`;
}

/**
 * Maps any error to the problem shape; only unexpected errors are logged, with their stack.
 * `bodyLimit`: the body limit of the route the request was for.
 */
export function toProblem(error: unknown, bodyLimit?: number): ProblemBody {
  if (error instanceof ProblemException) return problemBody(error.status, error.detail, error.violations);
  if (error instanceof HttpException) {
    const response = error.getResponse();
    const message =
      typeof response === 'object' && response !== null && 'message' in response
        ? String((response as { message: unknown }).message)
        : error.message;
    // Nest hands Fastify's own client errors over as plain HttpExceptions, without their code; at
    // 400 those are a body Fastify could not read (empty, not JSON, not of its Content-Length), at
    // 413 one over the route's limit.
    const fromFastify = error.constructor === HttpException;
    if (fromFastify && error.getStatus() === 413) return problemBody(413, tooLargeDetail(bodyLimit));
    const unreadableBody = fromFastify && error.getStatus() === 400;
    return problemBody(error.getStatus(), message, unreadableBody ? bodyViolation(message) : undefined);
  }
  // Errors raised by Fastify itself (body too large, malformed JSON) carry their status.
  const fastifyStatus = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof fastifyStatus === 'number' && fastifyStatus >= 400 && fastifyStatus < 500) {
    const detail = fastifyStatus === 413 ? tooLargeDetail(bodyLimit) : (error as Error).message;
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
    const request = host.switchToHttp().getRequest<FastifyRequest | undefined>();
    const body = toProblem(error, request?.routeOptions?.bodyLimit);
    void reply.status(body.status).header('content-type', PROBLEM_CONTENT_TYPE).send(body);
  }
}
