import type { FastifyReply } from 'fastify';
import { ProblemException } from '../problem';
import type { RateLimiter } from './rate-limiter';

/**
 * Takes one request of `key` from `limiter`: the RateLimit-* headers on the answer, and 429 with
 * Retry-After in the problem shape over the limit (`refusal` says whose limit it is).
 */
export async function limitOrRefuse(limiter: RateLimiter, key: string, reply: FastifyReply, refusal: (limit: string, retryAfterSeconds: number) => string): Promise<void> {
  const decision = await limiter.take(key);
  if (decision === null) return;
  const { requests, windowMs, burst } = limiter.settings;
  void reply.header('RateLimit-Limit', String(requests));
  void reply.header('RateLimit-Remaining', String(decision.remaining));
  void reply.header('RateLimit-Reset', String(decision.resetSeconds));
  void reply.header('RateLimit-Policy', `${requests};w=${Math.round(windowMs / 1000)};burst=${burst}`);
  if (decision.allowed) return;
  void reply.header('Retry-After', String(decision.retryAfterSeconds));
  throw new ProblemException(429, refusal(`${requests} requests in ${Math.round(windowMs / 1000)} s (bursts of ${burst})`, decision.retryAfterSeconds));
}
