import 'reflect-metadata';
import { configureLogging, connectNats, instanceId, loadConfig, runMain, runService, searchesConfigSchema } from '@immo/service-kit';
import { SearchesModule } from './searches.module';

runMain('searches', async () => {
  const config = loadConfig('searches', searchesConfigSchema);
  configureLogging('searches', config);
  const nats = await connectNats(config.NATS_URL, { name: 'searches', timeoutMs: config.NATS_CONNECT_TIMEOUT_MS });
  await runService('searches', config, await SearchesModule.register({ config, nats, instance: instanceId('searches', config) }));
});
