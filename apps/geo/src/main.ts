import 'reflect-metadata';
import { configureLogging, connectNats, instanceId, loadConfig, runMain, runService, geoConfigSchema } from '@immo/service-kit';
import { GeoModule } from './geo.module';

runMain('geo', async () => {
  const config = loadConfig('geo', geoConfigSchema);
  configureLogging('geo', config);
  const nats = await connectNats(config, { name: 'geo', principal: 'geo' });
  await runService('geo', config, await GeoModule.register({ config, nats, instance: instanceId('geo', config) }));
});
