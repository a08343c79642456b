import { BadRequestException, HttpException } from '@nestjs/common';
import { BODY_PATH, toProblem } from './problem.filter';
import { ProblemException } from './problem';

/** An error as Fastify raises it for a body it could not parse or take. */
function fastifyError(statusCode: number, code: string, message: string): Error {
  return Object.assign(new Error(message), { statusCode, code });
}

describe('toProblem', () => {
  it('names the body in a violation when Fastify could not read it (empty, not JSON)', () => {
    for (const code of ['FST_ERR_CTP_EMPTY_JSON_BODY', 'FST_ERR_CTP_INVALID_JSON_BODY']) {
      const problem = toProblem(fastifyError(400, code, 'Body is not valid JSON'));
      expect(problem).toMatchObject({ status: 400, detail: 'Body is not valid JSON', violations: [{ propertyPath: BODY_PATH, message: 'Body is not valid JSON' }] });
    }
  });

  it('names the body for a 400 of Fastify that Nest handed over as a plain HttpException (without its code)', () => {
    const message = "Body is not valid JSON but content-type is set to 'application/json'";
    expect(toProblem(new HttpException(message, 400))).toMatchObject({ status: 400, detail: message, violations: [{ propertyPath: BODY_PATH, message }] });
    expect(toProblem(new HttpException('Not Found', 404)).violations).toBeUndefined();
  });

  it('names the route body limit in a 413, as Fastify raises it or as Nest hands it over', () => {
    const detail = 'The request body is too large: this operation takes at most 64 KiB (65536 bytes).';
    expect(toProblem(fastifyError(413, 'FST_ERR_CTP_BODY_TOO_LARGE', 'Request body is too large'), 64 * 1024)).toMatchObject({ status: 413, detail });
    expect(toProblem(new HttpException('Request body is too large', 413), 64 * 1024)).toEqual(expect.objectContaining({ status: 413, detail }));
    expect(toProblem(new HttpException('Request body is too large', 413), 5 * 1024 * 1024).detail).toContain('at most 5 MiB (5242880 bytes)');
  });

  it('keeps other client errors of Fastify without violations, and says a large body is too large', () => {
    expect(toProblem(fastifyError(413, 'FST_ERR_CTP_BODY_TOO_LARGE', 'Request body is too large'))).toEqual(
      expect.objectContaining({ status: 413, detail: 'The request body is too large.' }),
    );
    expect(toProblem(fastifyError(413, 'FST_ERR_CTP_BODY_TOO_LARGE', 'x')).violations).toBeUndefined();
    expect(toProblem(fastifyError(404, 'FST_ERR_NOT_FOUND', 'Route not found')).violations).toBeUndefined();
  });

  it('renders the gateway own problems and Nest exceptions as they are, and hides unexpected errors behind a 500', () => {
    expect(toProblem(ProblemException.badRequest('Invalid query parameters: page', [{ propertyPath: 'page', message: 'must be an integer' }]))).toMatchObject({
      status: 400,
      violations: [{ propertyPath: 'page' }],
    });
    expect(toProblem(new BadRequestException('nope'))).toMatchObject({ status: 400, detail: 'nope' });
    const crash = toProblem(new TypeError('secret internals'));
    expect(crash).toMatchObject({ status: 500, detail: 'An unexpected error occurred.' });
    expect(JSON.stringify(crash)).not.toContain('secret internals');
  });
});
