import { Transport, type NatsOptions } from '@nestjs/microservices';
import { queueGroupOf, type ServiceName } from '@immo/contracts';
import { natsConnectionOptions, type NatsClientSettings } from '../nats/nats-connection-options';
import { PlainJsonReplySerializer } from '../nats/plain-json-reply.serializer';
import { PlainJsonRequestDeserializer } from '../nats/plain-json-request.deserializer';

/**
 * How every service listens on NATS: in its queue group (replicas share the work), answering both
 * Nest's envelope (the gateway) and plain JSON requests (crawlers using a bare NATS client).
 */
export function natsTransportOptions(service: ServiceName, config: NatsClientSettings): NatsOptions {
  return {
    transport: Transport.NATS,
    options: {
      ...natsConnectionOptions(config, service),
      queue: queueGroupOf(service),
      name: `${service}-rpc`,
      maxReconnectAttempts: -1,
      serializer: new PlainJsonReplySerializer(),
      deserializer: new PlainJsonRequestDeserializer(),
    },
  };
}
