import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { parseQueryString, rawQueryOf } from './query-string';

/** The request's query string parsed with bracket notation and the bounds of QUERY_LIMITS. */
export const BracketQuery = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  return parseQueryString(rawQueryOf(request.raw.url ?? request.url));
});
