import 'reflect-metadata';
import { configureLogging, connectNats, instanceId, loadConfig, runMain, runService, notifierConfigSchema } from '@immo/service-kit';
import { NotifierModule } from './notifier.module';

runMain('notifier', async () => {
  const config = loadConfig('notifier', notifierConfigSchema);
  configureLogging('notifier', config);
  const nats = await connectNats(config, { name: 'notifier', principal: 'notifier' });
  await runService('notifier', config, await NotifierModule.register({ config, nats, instance: instanceId('notifier', config) }));
});
