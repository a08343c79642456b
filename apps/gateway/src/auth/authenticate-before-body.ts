import { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PROBLEM_CONTENT_TYPE, ProblemException, problemBody } from '../http/problem';
import { routeAccessOf } from '../http/route-policy';
import type { AuthenticatedRequest } from './api-key.guard';
import type { RequestAuthenticator } from './request-authenticator';

/** How long the rest of a refused request's body is thrown away as it comes before the connection is cut. */
export const REFUSED_BODY_DRAIN_MS = 1000;

/**
 * After a refusal, what the client still sends of its body is thrown away as it arrives (Node
 * does this itself once the answer is sent, without buffering or parsing), and the connection is
 * cut if the body has not ended within `REFUSED_BODY_DRAIN_MS`. Closing the connection at once
 * instead would have the kernel reset it while the client is still sending, and many clients then
 * report the reset rather than the answer they were sent (servers such as Go's drain or wait
 * briefly for the same reason); cutting it later bounds what a client that keeps sending costs.
 * (A client that asked for `Connection: close` has it closed right after the answer: Node does so
 * for any answer.)
 */
function drainForAWhile(request: FastifyRequest): void {
  const incoming = request.raw;
  const socket = incoming.socket;
  // A request injected in tests (no connection) has nothing to cut.
  if (incoming.complete || !(socket instanceof Socket)) return;
  const cut = setTimeout(() => socket.destroy(), REFUSED_BODY_DRAIN_MS);
  cut.unref();
  const keep = () => clearTimeout(cut);
  incoming.once('end', keep);
  socket.once('close', keep);
}

/** A refusal in the problem shape, as the exception filter renders one; the body stays unread. */
export function refuse(request: FastifyRequest, reply: FastifyReply, problem: ProblemException): FastifyReply {
  drainForAWhile(request);
  return reply.code(problem.status).header('content-type', PROBLEM_CONTENT_TYPE).send(problemBody(problem.status, problem.detail, problem.violations));
}

/**
 * Checks the key of every request that needs one in Fastify's `onRequest` hook, the first step of
 * a request, before any byte of its body is read: a request without a valid key costs a header
 * lookup and is answered 401 (or 429, 403, 503) whatever body it announced, never 400 or 413
 * after Fastify read and parsed it. The identity is left on the request (`apiKey`) for the
 * controllers; rate limits are taken here too, so a request over its limit is not read either.
 *
 * Registered as a plugin after CORS (`enableCors`), and without encapsulation (the documented
 * `skip-override` property, what `fastify-plugin` sets): plugins load in order, so the CORS hook
 * runs first and answers preflights, and a refusal carries the CORS headers a browser needs to
 * read it.
 */
export function authenticateBeforeBody(fastify: FastifyInstance, authenticator: RequestAuthenticator): void {
  const plugin = async (instance: FastifyInstance): Promise<void> => {
    instance.addHook('onRequest', async (request, reply) => {
      const access = routeAccessOf(request);
      if (access === 'public') return;
      try {
        (request as AuthenticatedRequest).apiKey = await authenticator.authenticate(request, reply, access);
      } catch (error) {
        if (!(error instanceof ProblemException)) throw error;
        return refuse(request, reply, error);
      }
    });
  };
  void fastify.register(Object.assign(plugin, { [Symbol.for('skip-override')]: true }));
}
