#!/usr/bin/env node
// `npm start`: the whole stack on this machine (embedded runtime), state under DATA_DIR.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build, ensureDependencies, ensureNatsServer, root } from './prerequisites.mjs';

async function main() {
  ensureDependencies();
  process.env.NATS_SERVER_BIN = ensureNatsServer();
  build();
  const require = createRequire(import.meta.url);
  const { startStack } = require(join(root, 'dist', 'tools', 'stack', 'src', 'index.js'));
  const port = Number(process.env.PORT ?? 3000);
  const dataDir = process.env.DATA_DIR ?? join(root, '.data');
  const stack = await startStack({
    root,
    dataDir,
    port,
    natsPort: Number(process.env.NATS_PORT ?? 4222),
    natsUrl: process.env.NATS_URL,
    healthPortBase: Number(process.env.HEALTH_PORT_BASE ?? port + 101),
    output: 'inherit',
  });
  let stopping = false;
  const stop = async (signal) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the stack…`);
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  try {
    await loadDemoOnFirstStart(require, stack, dataDir);
  } catch (error) {
    await stack.stop();
    throw error;
  }
  console.log(`
  Stack ready.
    base URL : ${stack.baseUrl}
    API key  : ${stack.apiKey}   (also in ${join(dataDir, 'api-key')})
    admin key: ${stack.adminApiKey}   (ingestion; in ${join(dataDir, 'admin-api-key')})
    NATS     : ${stack.natsUrl}
  Try: curl -H "X-API-KEY: ${stack.apiKey}" ${stack.baseUrl}/health/ready
  Ctrl-C stops everything.
`);
}

/**
 * A new user should see data at once: on the first start, a few thousand SYNTHETIC properties are
 * generated and ingested through the API. `DEMO_DATA=off` skips it; `DEMO_GOODS` sets the size.
 */
async function loadDemoOnFirstStart(require, stack, dataDir) {
  if (process.env.DEMO_DATA === 'off') return;
  const { loadDemoData, demoAlreadyLoaded } = require(join(root, 'dist', 'apps', 'listings', 'demo', 'load-demo.js'));
  if (demoAlreadyLoaded(dataDir)) return;
  console.log('First start: loading synthetic demo listings (DEMO_DATA=off skips this)…');
  const result = await loadDemoData({
    baseUrl: stack.baseUrl,
    adminApiKey: stack.adminApiKey,
    dataDir,
    goods: Number(process.env.DEMO_GOODS ?? 3000),
  });
  console.log(`Demo data: ${result.accepted} snapshots accepted, ${result.rejected} rejected.`);
}

main().catch((error) => {
  console.error(`npm start failed: ${error.message}`);
  process.exit(1);
});
