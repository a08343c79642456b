import 'reflect-metadata';
import { configureLogging, connectNats, instanceId, loadConfig, runMain, runService, searchesConfigSchema } from '@immo/service-kit';
import { SearchesModule } from './searches.module';

runMain('searches', async () => {
  const config = loadConfig('searches', searchesConfigSchema);
  configureLogging('searches', config);
  const nats = await connectNats(config, { name: 'searches', principal: 'searches' });
  await runService('searches', config, await SearchesModule.register({ config, nats, instance: instanceId('searches', config) }));
});
