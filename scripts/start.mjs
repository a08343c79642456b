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
  console.log(`
  Stack ready.
    base URL : ${stack.baseUrl}
    API key  : ${stack.apiKey}   (also in ${join(dataDir, 'api-key')})
    NATS     : ${stack.natsUrl}
  Try: curl -H "X-API-KEY: ${stack.apiKey}" ${stack.baseUrl}/health/ready
  Ctrl-C stops everything.
`);
}

main().catch((error) => {
  console.error(`npm start failed: ${error.message}`);
  process.exit(1);
});
