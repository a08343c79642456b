import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload, Transport, type MicroserviceOptions } from '@nestjs/microservices';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { z } from 'zod';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import { parseRpcPayload } from '../rpc/parse-rpc-payload';
import { connectNats } from './connect-nats';
import { NatsRpcClient, RpcCallError } from './nats-rpc-client';

const echoSchema = z.object({ text: z.string().min(1) }).strict();

@Controller()
class EchoController {
  @MessagePattern('test.echo.v1')
  echo(@Payload() payload: unknown) {
    return { echoed: parseRpcPayload(echoSchema, payload).text };
  }

  @MessagePattern('test.crash.v1')
  crash(): never {
    throw new Error('unexpected');
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

describe('NatsRpcClient against a Nest microservice on a real nats-server', () => {
  let server: RunningNatsServer;
  let service: INestMicroservice;
  let nats: NatsConnection;
  let client: NatsRpcClient;

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: false });
    service = await NestFactory.createMicroservice<MicroserviceOptions>(EchoModule, {
      transport: Transport.NATS,
      options: { servers: [server.url], queue: 'test-workers' },
      logger: false,
    });
    await service.listen();
    nats = await connectNats({ NATS_URL: server.url, NATS_CONNECT_TIMEOUT_MS: 2000 }, { name: 'test', principal: null });
    client = new NatsRpcClient(nats, 1000);
  });

  afterAll(async () => {
    await nats?.drain();
    await service?.close();
    await server?.stop();
  });

  it('returns the handler response', async () => {
    await expect(client.request('test.echo.v1', { text: 'bonjour' })).resolves.toEqual({ echoed: 'bonjour' });
  });

  it('surfaces the service-side validation error with its violations', async () => {
    const failure = await client.request('test.echo.v1', { text: '', extra: 1 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RpcCallError);
    expect((failure as RpcCallError).kind).toBe('remote');
    expect((failure as RpcCallError).payload?.status).toBe(400);
    expect((failure as RpcCallError).payload?.violations?.map((v) => v.propertyPath).sort()).toEqual(['extra', 'text']);
  });

  it('reports an unexpected handler failure as remote without a status', async () => {
    const failure = (await client.request('test.crash.v1', {}).catch((e: unknown) => e)) as RpcCallError;
    expect(failure.kind).toBe('remote');
    expect(failure.payload).toBeUndefined();
  });

  it('says unavailable at once when nobody subscribes to the subject', async () => {
    const started = Date.now();
    const failure = (await client.request('test.nobody.v1', {}).catch((e: unknown) => e)) as RpcCallError;
    expect(failure.kind).toBe('unavailable');
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('times out when the responder stays silent', async () => {
    const silent = nats.subscribe('test.silent.v1');
    const failure = (await client.request('test.silent.v1', {}, { timeoutMs: 200 }).catch((e: unknown) => e)) as RpcCallError;
    silent.unsubscribe();
    expect(failure.kind).toBe('timeout');
  });

  it('fails to connect with a message naming NATS and the URL', async () => {
    await expect(connectNats({ NATS_URL: 'nats://127.0.0.1:1', NATS_CONNECT_TIMEOUT_MS: 1000 }, { name: 'test', principal: null })).rejects.toThrow(
      'Cannot connect to NATS at nats://127.0.0.1:1',
    );
  });
});
