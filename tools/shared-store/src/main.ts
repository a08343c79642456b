/**
 * The one-machine stand-in for a shared MongoDB: serves the services' read models over NATS
 * (`DOCUMENT_STORE=shared`), one embedded database per service under DATA_DIR/shared-store, so
 * that replicas started by `REPLICAS=2 npm start` share them as production's replicas share
 * MongoDB. Not replicated: while it is down, the services that use it wait for it.
 */
import { join } from 'node:path';
import { serveDocumentStores } from '@immo/document-store';
import { connectNats, natsClientSettingsFromEnv, runMain } from '@immo/service-kit';

runMain('shared-store', async () => {
  const settings = natsClientSettingsFromEnv();
  const natsUrl = settings.NATS_URL;
  const dataDir = join(process.env['DATA_DIR'] ?? '.data', 'shared-store');
  const nats = await connectNats(settings, { name: 'shared-store', principal: 'shared-store' });
  const server = serveDocumentStores({
    nats,
    dataDir,
    onError: (error) => process.stderr.write(`[shared-store] ${error instanceof Error ? error.message : String(error)}\n`),
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.stop();
    await nats.drain();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.stdout.write(`shared-store serving ${dataDir} on ${natsUrl}\n`);
});
