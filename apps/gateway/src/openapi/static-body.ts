import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

const gzipAsync = promisify(gzip);

/** Below this, compressing costs more than it saves. */
const MIN_COMPRESSED_BYTES = 1024;

/**
 * A response body fixed for the life of the process (the docs page, its assets, the OpenAPI
 * document): hashed once for its ETag, gzipped once, on first use, off the event loop.
 */
export class StaticBody {
  readonly etag: string;
  /** A short content hash, for URLs that change when the content does (`?v=`). */
  readonly version: string;
  private gzipped: Promise<Buffer> | null = null;

  constructor(
    readonly content: Buffer,
    readonly contentType: string,
  ) {
    const hash = createHash('sha256').update(content).digest('hex');
    this.version = hash.slice(0, 16);
    this.etag = `"${this.version}"`;
  }

  get compressible(): boolean {
    return this.content.length >= MIN_COMPRESSED_BYTES && !this.contentType.startsWith('image/');
  }

  gzip(): Promise<Buffer> {
    this.gzipped ??= gzipAsync(this.content, { level: 9 });
    return this.gzipped;
  }
}

/** Whether `Accept-Encoding` takes gzip (`gzip`, `*`, without `q=0`). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  return value.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

function matchesEtag(header: string | string[] | undefined, etag: string): boolean {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value === undefined) return false;
  return value.split(',').some((tag) => {
    const candidate = tag.trim().replace(/^W\//, '');
    return candidate === '*' || candidate === etag;
  });
}

/**
 * Sends a static body with validators: 304 when `If-None-Match` names it, gzip when the client
 * takes it. `headers` come on top (cache policy, content security policy).
 */
export async function sendStatic(request: FastifyRequest, reply: FastifyReply, body: StaticBody, headers: Record<string, string>): Promise<void> {
  void reply.headers({
    ...headers,
    'content-type': body.contentType,
    etag: body.etag,
    'x-content-type-options': 'nosniff',
    ...(body.compressible ? { vary: 'Accept-Encoding' } : {}),
  });
  if (matchesEtag(request.headers['if-none-match'], body.etag)) {
    await reply.code(304).send();
    return;
  }
  if (body.compressible && acceptsGzip(request.headers['accept-encoding'])) {
    const compressed = await body.gzip();
    await reply.header('content-encoding', 'gzip').send(compressed);
    return;
  }
  await reply.send(body.content);
}
