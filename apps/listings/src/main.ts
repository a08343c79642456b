import 'reflect-metadata';
import { configureLogging, connectNats, instanceId, loadConfig, runMain, runService, serviceConfigSchema } from '@immo/service-kit';
import { ListingsRuntime } from './listings-runtime';
import { ListingsModule } from './listings.module';

runMain('listings', async () => {
  const config = loadConfig('listings', serviceConfigSchema);
  configureLogging('listings', config);
  const nats = await connectNats(config.NATS_URL, { name: 'listings', timeoutMs: config.NATS_CONNECT_TIMEOUT_MS });
  const app = await runService('listings', config, await ListingsModule.register({ config, nats, instance: instanceId('listings') }));
  app.get(ListingsRuntime).serving();
});
