import 'reflect-metadata';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Controller, Get, Module } from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { BracketQuery } from './bracket-query.decorator';
import { gatewayFastifyOptions, URL_PATH } from './http-server-options';
import { ProblemFilter } from './problem.filter';
import { QUERY_LIMITS, type ParsedQuery } from './query-string';

@Controller()
class EchoController {
  @Get('echo')
  echo(@BracketQuery() query: ParsedQuery): { length: number } {
    return { length: String(query['q'] ?? '').length };
  }
}

@Module({ controllers: [EchoController], providers: [{ provide: APP_FILTER, useClass: ProblemFilter }] })
class EchoModule {}

/** Raw node:http so nothing on the client side shortens or rejects the long request line. */
function get(port: number, path: string): Promise<{ status: number; contentType: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('gateway HTTP server options', () => {
  let app: NestFastifyApplication;
  let port: number;

  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(EchoModule, new FastifyAdapter(gatewayFastifyOptions({})), { logger: false });
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
  });

  afterAll(async () => {
    await app?.close();
  });

  it('leaves room in the header limit for the longest accepted query string', () => {
    expect(gatewayFastifyOptions({}).http?.maxHeaderSize).toBeGreaterThan(QUERY_LIMITS.maxLength);
  });

  it('lets a 40 KiB query string reach the route (Node alone answers 431 past 16 KiB)', async () => {
    const length = 40 * 1024;
    const response = await get(port, `/echo?q=${'x'.repeat(length)}`);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ length });
  });

  it('answers a query string just over the limit with the gateway 414 problem', async () => {
    const response = await get(port, `/echo?q=${'x'.repeat(QUERY_LIMITS.maxLength)}`);
    expect(response.status).toBe(414);
    expect(response.contentType).toContain('application/problem+json');
    expect(JSON.parse(response.body)).toMatchObject({ '@type': 'hydra:Error', status: 414, detail: `The query string is longer than ${QUERY_LIMITS.maxLength} characters.` });
  });

  it('answers a path it cannot decode with a 400 problem naming the URL, not Fastify\'s own body', async () => {
    const response = await get(port, '/echo/%');
    expect(response.status).toBe(400);
    expect(response.contentType).toContain('application/problem+json');
    expect(JSON.parse(response.body)).toMatchObject({ '@type': 'hydra:Error', status: 400, violations: [{ propertyPath: URL_PATH }] });
  });
});
