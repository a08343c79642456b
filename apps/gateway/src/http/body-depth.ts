import type { FastifyInstance } from 'fastify';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem';

/** How deep a request body's arrays and objects may nest: far beyond any body this API takes. */
export const MAX_BODY_DEPTH = 64;
/** How a violation names the request body as a whole. */
export const BODY = '(body)';

/**
 * The nesting depth of a parsed JSON value, or `limit + 1` as soon as it goes past `limit`,
 * walked without recursion (a body 5,000 arrays deep is 10 KB, and the code that walks a body
 * recursively would overflow its stack on it).
 */
export function depthBeyond(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop() as [unknown, number];
    if (typeof current !== 'object' || current === null) continue;
    const level = depth + 1;
    if (level > limit) return level;
    deepest = Math.max(deepest, level);
    for (const child of Array.isArray(current) ? current : Object.values(current)) pending.push([child, level]);
  }
  return deepest;
}

/** Bodies nested deeper than `MAX_BODY_DEPTH` are refused with a 400 naming the body, on every route. */
export function installBodyDepthLimit(server: FastifyInstance): void {
  server.addHook('preValidation', async (request, reply) => {
    if (request.body === undefined || depthBeyond(request.body, MAX_BODY_DEPTH) <= MAX_BODY_DEPTH) return;
    const body = problemBody(400, `The request body nests arrays and objects more than ${MAX_BODY_DEPTH} levels deep.`, [
      { propertyPath: BODY, message: `must not nest more than ${MAX_BODY_DEPTH} levels deep` },
    ]);
    await reply.status(400).header('content-type', PROBLEM_CONTENT_TYPE).send(body);
  });
}
