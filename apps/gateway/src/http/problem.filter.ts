import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { PROBLEM_CONTENT_TYPE, ProblemException, problemBody, type ProblemBody } from './problem';

const logger = new Logger('HTTP');

/** Maps any error to the problem shape; only unexpected errors are logged, with their stack. */
export function toProblem(error: unknown): ProblemBody {
  if (error instanceof ProblemException) return problemBody(error.status, error.detail, error.violations);
  if (error instanceof HttpException) {
    const response = error.getResponse();
    const message =
      typeof response === 'object' && response !== null && 'message' in response
        ? String((response as { message: unknown }).message)
        : error.message;
    return problemBody(error.getStatus(), message);
  }
  // Errors raised by Fastify itself (body too large, malformed JSON) carry their status.
  const fastifyStatus = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof fastifyStatus === 'number' && fastifyStatus >= 400 && fastifyStatus < 500) {
    const detail = fastifyStatus === 413 ? 'The request body is too large.' : (error as Error).message;
    return problemBody(fastifyStatus, detail);
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
