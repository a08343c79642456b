import type { FastifyInstance } from 'fastify';
import { PROBLEM_CONTENT_TYPE } from './problem';
import { toProblem } from './problem.filter';

/**
 * Errors Fastify raises before a Nest handler runs (body too large, malformed JSON)
 * get the same problem shape as everything else.
 */
export function installFastifyErrorHandling(fastify: FastifyInstance): void {
  fastify.setErrorHandler((error, _request, reply) => {
    const body = toProblem(error);
    void reply.status(body.status).header('content-type', PROBLEM_CONTENT_TYPE).send(body);
  });
}
