import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { configureLogging, connectNats, gatewayConfigSchema, HelperThreadPriority, installGracefulShutdown, loadConfig, runMain } from '@immo/service-kit';
import { endLiveStreams } from './alerts/live-stream';
import { createGatewayApp } from './gateway-app';

runMain('gateway', async () => {
  const config = loadConfig('gateway', gatewayConfigSchema);
  const logger = configureLogging('gateway', config);
  new HelperThreadPriority(config.HELPER_THREAD_NICE).start();
  const nats = await connectNats(config, { name: 'gateway', principal: 'gateway' });
  const app = await createGatewayApp(config, nats, { nest: { logger } });
  // SIGTERM: readiness 503, open event streams end (clients reconnect elsewhere with Last-Event-ID),
  // the listener stops taking connections and waits for the requests under way, NATS drains.
  installGracefulShutdown('gateway', config.SHUTDOWN_TIMEOUT_MS, async () => {
    endLiveStreams();
    await app.close();
    await nats.drain().catch(() => undefined);
  });
  await app.listen(config.PORT, config.HOST);
  new Logger('gateway').log(`listening on http://${config.HOST}:${config.PORT}`);
});
