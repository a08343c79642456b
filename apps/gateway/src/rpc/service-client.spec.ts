import { RpcCallError } from '@immo/service-kit';
import { ProblemException } from '../http/problem';
import { toHttpProblem } from './service-client';

describe('toHttpProblem', () => {
  const statusOf = (error: RpcCallError) => (toHttpProblem(error) as ProblemException).status;

  it('answers 503 when no service instance is subscribed', () => {
    expect(statusOf(new RpcCallError('unavailable', 'geo.query.cities.v1', 'none'))).toBe(503);
  });

  it('answers 504 when the service does not answer in time', () => {
    const problem = toHttpProblem(new RpcCallError('timeout', 'geo.query.cities.v1', 'slow')) as ProblemException;
    expect(problem.status).toBe(504);
    expect(problem.detail).toContain('geo');
  });

  it('keeps a service-side validation error as a 400 with its violations', () => {
    const payload = { status: 400, title: 'An error occurred', detail: 'bad', violations: [{ propertyPath: 'lat', message: 'must be a number' }] };
    const problem = toHttpProblem(new RpcCallError('remote', 'geo.query.pois.v1', 'bad', payload)) as ProblemException;
    expect(problem.status).toBe(400);
    expect(problem.violations).toEqual(payload.violations);
  });

  it('answers 502 for a service failure without a status', () => {
    expect(statusOf(new RpcCallError('remote', 'geo.query.cities.v1', 'Internal server error'))).toBe(502);
  });

  it('leaves other errors to the exception filter', () => {
    const error = new Error('boom');
    expect(toHttpProblem(error)).toBe(error);
  });
});

describe('toHttpProblem for oversized requests', () => {
  it('answers 413 when a request exceeds the NATS message limit', () => {
    expect((toHttpProblem(new RpcCallError('too-large', 'listings.cmd.ingest-adverts.v1', 'big')) as ProblemException).status).toBe(413);
  });
});
