import type { FastifyReply } from 'fastify';

/** Names the query parameters a request gave that the endpoint does not know. */
export const IGNORED_PARAMETERS_HEADER = 'X-Ignored-Parameters';

/**
 * A parameter name as a header can carry it: characters outside printable ASCII (a newline, an
 * emoji) and `%` itself are percent-encoded (UTF-8), everything else is kept as sent. Node refuses
 * a header value holding such characters, which turned an unknown parameter into a 500.
 */
export function headerSafeName(name: string): string {
  // A lone surrogate (no character at all) is sent as the replacement character.
  return name.replace(/[^\x20-\x24\x26-\x7e]/gu, (character) => encodeURIComponent(/^[\ud800-\udfff]$/.test(character) ? '\ufffd' : character));
}

/** Names the ignored parameters in the response's header, when there are any. */
export function nameIgnoredParameters(reply: FastifyReply, names: readonly string[]): void {
  if (names.length > 0) void reply.header(IGNORED_PARAMETERS_HEADER, names.map(headerSafeName).join(', '));
}
