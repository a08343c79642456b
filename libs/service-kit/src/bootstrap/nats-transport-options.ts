import { Transport, type NatsOptions } from '@nestjs/microservices';
import { queueGroupOf, type ServiceName } from '@immo/contracts';
import type { ServiceConfig } from '../config/common-config';
import { PlainJsonReplySerializer } from '../nats/plain-json-reply.serializer';
import { PlainJsonRequestDeserializer } from '../nats/plain-json-request.deserializer';

/**
 * How every service listens on NATS: in its queue group (replicas share the work), answering both
 * Nest's envelope (the gateway) and plain JSON requests (crawlers using a bare NATS client).
 */
export function natsTransportOptions(service: ServiceName, config: Pick<ServiceConfig, 'NATS_URL' | 'NATS_CONNECT_TIMEOUT_MS'>): NatsOptions {
  return {
    transport: Transport.NATS,
    options: {
      servers: config.NATS_URL.split(',').map((s) => s.trim()),
      queue: queueGroupOf(service),
      name: `${service}-rpc`,
      timeout: config.NATS_CONNECT_TIMEOUT_MS,
      maxReconnectAttempts: -1,
      serializer: new PlainJsonReplySerializer(),
      deserializer: new PlainJsonRequestDeserializer(),
    },
  };
}
