import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern } from '@nestjs/microservices';
import { connect, JSONCodec, type NatsConnection } from 'nats';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import { DrainingNatsServer } from './draining-nats-server';

const codec = JSONCodec();
const SLOW_MS = 400;

@Controller()
class SlowController {
  @MessagePattern('test.slow')
  async slow(): Promise<{ done: true }> {
    await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
    return { done: true };
  }
}

@Module({ controllers: [SlowController] })
class SlowModule {}

describe('DrainingNatsServer', () => {
  let server: RunningNatsServer;
  let client: NatsConnection;
  let app: INestMicroservice;
  let strategy: DrainingNatsServer;

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: false });
    client = await connect({ servers: server.url });
    strategy = new DrainingNatsServer({ servers: [server.url], queue: 'test' });
    app = await NestFactory.createMicroservice(SlowModule, { strategy, logger: false });
    await app.listen();
  });

  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  it('given a request under way, when draining and then closing at once (as on SIGTERM), then its reply still arrives, and later requests find no responder', async () => {
    const reply = client.request('test.slow', codec.encode({ pattern: 'test.slow', data: {}, id: '1' }), { timeout: 3000 });
    // The request is being handled (its handler awaits) when the drain starts.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await strategy.drainRequests(5000)).toBe(true);
    expect(strategy.inFlight).toBe(0);
    await app.close();
    const answer = codec.decode((await reply).data) as { response?: { done: boolean } };
    expect(answer.response).toEqual({ done: true });
    await expect(client.request('test.slow', codec.encode({ pattern: 'test.slow', data: {}, id: '2' }), { timeout: 1000 })).rejects.toThrow(/503|no responders/i);
  });
});
