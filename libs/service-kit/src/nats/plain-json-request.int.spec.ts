import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { StringCodec, type NatsConnection } from 'nats';
import { z } from 'zod';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import { natsTransportOptions } from '../bootstrap/nats-transport-options';
import { parseRpcPayload } from '../rpc/parse-rpc-payload';
import { connectNats } from './connect-nats';
import { JsonText } from './json-text';
import { NatsRpcClient } from './nats-rpc-client';

const ingestSchema = z.object({ snapshots: z.array(z.string()).min(1) }).strict();

@Controller()
class IngestController {
  @MessagePattern('test.cmd.ingest.v1')
  ingest(@Payload() payload: unknown) {
    return { accepted: parseRpcPayload(ingestSchema, payload).snapshots.length };
  }

  /** Answers with text it already holds: `{"page": [...]}` with the names as given. */
  @MessagePattern('test.query.page.v1')
  page(@Payload() payload: unknown) {
    const { snapshots } = parseRpcPayload(ingestSchema, payload);
    return new JsonText(`{"page":[${snapshots.map((name) => JSON.stringify({ name })).join(',')}]}`);
  }

  @MessagePattern('test.cmd.crash.v1')
  crash(): never {
    throw new Error('unexpected');
  }
}

@Module({ controllers: [IngestController] })
class IngestModule {}

const text = StringCodec();

describe('plain JSON requests to a service started with natsTransportOptions', () => {
  let server: RunningNatsServer;
  let service: INestMicroservice;
  let nats: NatsConnection;

  /** What a crawler does with the bare `nats` client: no Nest envelope, the raw reply back. */
  async function plainRequest(subject: string, body: string): Promise<unknown> {
    const reply = await nats.request(subject, text.encode(body), { timeout: 1000 });
    return JSON.parse(text.decode(reply.data)) as unknown;
  }

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: false });
    service = await NestFactory.createMicroservice(IngestModule, {
      ...natsTransportOptions('listings', { NATS_URL: server.url, NATS_CONNECT_TIMEOUT_MS: 2000 }),
      logger: false,
    });
    await service.listen();
    nats = await connectNats({ NATS_URL: server.url, NATS_CONNECT_TIMEOUT_MS: 2000 }, { name: 'test-crawler', principal: null });
  });

  afterAll(async () => {
    await nats?.drain();
    await service?.close();
    await server?.stop();
  });

  it('answers a plain JSON request with the plain handler result', async () => {
    await expect(plainRequest('test.cmd.ingest.v1', JSON.stringify({ snapshots: ['a', 'b'] }))).resolves.toEqual({ accepted: 2 });
  });

  it('answers a plain request that fails validation with the plain 400 problem and its violations', async () => {
    const problem = (await plainRequest('test.cmd.ingest.v1', JSON.stringify({ snapshots: [], extra: 1 }))) as Record<string, unknown>;
    expect(problem).toMatchObject({ status: 400, title: expect.any(String), detail: 'The request payload is invalid.' });
    expect((problem['violations'] as { propertyPath: string }[]).map((v) => v.propertyPath).sort()).toEqual(['extra', 'snapshots']);
  });

  it('answers a body that is not JSON with a 400 naming the body, and keeps serving', async () => {
    await expect(plainRequest('test.cmd.ingest.v1', 'snapshots=a,b')).resolves.toMatchObject({
      status: 400,
      detail: 'The request body is not valid JSON.',
    });
    await expect(plainRequest('test.cmd.ingest.v1', JSON.stringify({ snapshots: ['a'] }))).resolves.toEqual({ accepted: 1 });
  });

  it('answers an unexpected handler failure with a 500 problem', async () => {
    await expect(plainRequest('test.cmd.crash.v1', '{}')).resolves.toMatchObject({ status: 500, detail: 'The service failed: Internal server error' });
  });

  it('still answers Nest-envelope requests from NatsRpcClient in Nest format', async () => {
    const client = new NatsRpcClient(nats, 1000);
    await expect(client.request('test.cmd.ingest.v1', { snapshots: ['a'] })).resolves.toEqual({ accepted: 1 });
    const failure = await client.request('test.cmd.ingest.v1', { snapshots: [] }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ kind: 'remote', payload: { status: 400 } });
  });

  describe('a handler answering JsonText', () => {
    const names = ['Besançon', 'l\'Haÿ-les-Roses', '"quoted" }', '東京'];
    const expected = { page: names.map((name) => ({ name })) };

    it('reaches requestJsonBytes as the same text, unparsed, multi-byte characters included', async () => {
      const client = new NatsRpcClient(nats, 1000);
      const answer = await client.requestJsonBytes('test.query.page.v1', { snapshots: names });
      expect(new TextDecoder().decode(answer)).toBe(JSON.stringify(expected));
    });

    it('is a valid Nest envelope for clients that parse the whole reply', async () => {
      const client = new NatsRpcClient(nats, 1000);
      await expect(client.request('test.query.page.v1', { snapshots: names })).resolves.toEqual(expected);
    });

    it('is the plain body for a plain JSON request', async () => {
      await expect(plainRequest('test.query.page.v1', JSON.stringify({ snapshots: names }))).resolves.toEqual(expected);
    });

    it('keeps errors as errors: requestJsonBytes raises the 400, and returns ordinary replies as JSON', async () => {
      const client = new NatsRpcClient(nats, 1000);
      await expect(client.requestJsonBytes('test.query.page.v1', { snapshots: [] })).rejects.toMatchObject({ kind: 'remote', payload: { status: 400 } });
      const ordinary = await client.requestJsonBytes('test.cmd.ingest.v1', { snapshots: ['a'] });
      expect(new TextDecoder().decode(ordinary)).toBe('{"accepted":1}');
    });
  });
});
