import 'reflect-metadata';
import { configureLogging, connectNats, instanceId, loadConfig, runMain, runService, serviceConfigSchema } from '@immo/service-kit';
import { ListingsRuntime } from './listings-runtime';
import { ListingsModule } from './listings.module';

runMain('listings', async () => {
  const config = loadConfig('listings', serviceConfigSchema);
  configureLogging('listings', config);
  const nats = await connectNats(config, { name: 'listings', principal: 'listings' });
  // Request ids are handed on by the handlers (see RequestIdPassing): binding them would put a
  // promise hook on every promise the projections and the ingestion create.
  const app = await runService('listings', config, await ListingsModule.register({ config, nats, instance: instanceId('listings', config) }), { requestIds: 'explicit' });
  app.get(ListingsRuntime).serving();
});
