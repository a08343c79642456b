#!/usr/bin/env node
// `npm start`: the whole stack on this machine (embedded runtime), state under DATA_DIR.
// One line per step; the apps' and nats-server's logs go to DATA_DIR/logs/<name>.log
// (`npm start -- --verbose` or LOG_TO_CONSOLE=1 streams them here instead).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build, ensureDependencies, ensureNatsServer, root } from './prerequisites.mjs';

const verbose = process.argv.includes('--verbose') || process.env.LOG_TO_CONSOLE === '1';
const started = Date.now();
const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const step = (line) => console.log(`  ✔ ${line}`);

async function main() {
  ensureDependencies({ quiet: !verbose });
  step(`dependencies (${seconds()})`);
  process.env.NATS_SERVER_BIN = ensureNatsServer();
  build();
  step(`build (${seconds()})`);
  const require = createRequire(import.meta.url);
  const { startStack } = require(join(root, 'dist', 'tools', 'stack', 'src', 'index.js'));
  const port = Number(process.env.PORT ?? 3000);
  const dataDir = process.env.DATA_DIR ?? join(root, '.data');
  const logDir = join(dataDir, 'logs');
  const replicas = positiveInteger('REPLICAS', 1);
  const natsNodes = positiveInteger('NATS_NODES', 1);
  if (natsNodes !== 1 && natsNodes !== 3) throw new Error(`NATS_NODES must be 1 or 3, not ${natsNodes}`);
  const stack = await startStack({
    root,
    dataDir,
    port,
    natsPort: Number(process.env.NATS_PORT ?? 4222),
    natsUrl: process.env.NATS_URL,
    healthPortBase: Number(process.env.HEALTH_PORT_BASE ?? port + 101),
    output: verbose ? 'inherit' : { logDir },
    onStep: step,
    replicas,
    natsNodes,
    listingsStore: process.env.LISTINGS_STORE === 'shared' ? 'shared' : 'private',
    // Without SMTP_URL, alert e-mails go to a local inbox (its web page is printed below).
    localInbox: { smtpPort: Number(process.env.INBOX_SMTP_PORT ?? port + 25), webPort: Number(process.env.INBOX_PORT ?? port + 80) },
  });
  let feed = null;
  let stopping = false;
  const stop = async (signal) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the stack…`);
    await feed?.stop();
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  try {
    await loadDemoOnFirstStart(require, stack, dataDir);
    feed = startDemoFeed(require, stack);
  } catch (error) {
    await stack.stop();
    throw error;
  }
  console.log(`
  Stack ready (${seconds()}).
    base URL : ${stack.baseUrl}${stack.baseUrls.length > 1 ? `   (gateway replicas: ${stack.baseUrls.join(', ')})` : ''}
    API docs : ${stack.baseUrl}/docs
    API key  : ${stack.apiKey}   (also in ${join(dataDir, 'api-key')})
    admin key: ${stack.adminApiKey}   (ingestion; in ${join(dataDir, 'admin-api-key')})
    NATS     : ${stack.natsUrl}
    e-mails  : ${stack.inboxUrl ? `${stack.inboxUrl}   (local inbox: alert e-mails land here)` : `sent through ${process.env.SMTP_URL?.replace(/\/\/[^@/]*@/, '//…@') ?? 'SMTP_URL'}`}
    logs     : ${verbose ? 'this terminal' : `${logDir}/<app>.log`}
  Try: curl -H "X-API-KEY: ${stack.apiKey}" "${stack.baseUrl}/documents/properties?itemsPerPage=3"
  See an alert arrive: npm run tour${feed ? '' : '   (a live feed of new adverts: DEMO_FEED=<adverts per second> npm start, or npm run demo:feed -- --rate 2)'}
  Ctrl-C stops everything.
`);
}

/** A whole number of at least 1 from the environment, or the fallback when unset. */
function positiveInteger(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 8) throw new Error(`${name} must be a whole number from 1 to 8, not ${raw}`);
  return value;
}

/**
 * A new user should see data at once: on the first start, a few thousand SYNTHETIC properties
 * covering the last six months are generated and ingested through the API. `DEMO_DATA=off` skips
 * it; `DEMO_GOODS` sets the size.
 */
async function loadDemoOnFirstStart(require, stack, dataDir) {
  if (process.env.DEMO_DATA === 'off') return;
  const { loadDemoData, demoAlreadyLoaded } = require(join(root, 'dist', 'apps', 'listings', 'demo', 'load-demo.js'));
  if (demoAlreadyLoaded(dataDir)) {
    step('demo data already loaded');
    return;
  }
  console.log('  … first start: loading synthetic demo listings (DEMO_DATA=off skips this)');
  const result = await loadDemoData({
    baseUrl: stack.baseUrl,
    adminApiKey: stack.adminApiKey,
    dataDir,
    goods: Number(process.env.DEMO_GOODS ?? 3000),
  });
  step(`demo data: ${result.accepted} snapshots accepted, ${result.rejected} rejected (${seconds()})`);
}

/** `DEMO_FEED=<adverts per second>`: new adverts, recrawls, price drops… until the stack stops. */
function startDemoFeed(require, stack) {
  const rate = Number(process.env.DEMO_FEED ?? 0);
  if (!process.env.DEMO_FEED || rate === 0) return null;
  if (!Number.isFinite(rate) || rate < 0) throw new Error(`DEMO_FEED must be a number of adverts per second, not ${process.env.DEMO_FEED}`);
  const { startLiveFeed } = require(join(root, 'dist', 'apps', 'listings', 'demo', 'live-feed.js'));
  // The feed says when it starts, and only speaks again when ingestion refuses or fails.
  return startLiveFeed({ baseUrl: stack.baseUrl, adminApiKey: stack.adminApiKey, rate, log: (line) => console.log(`  … ${line}`) });
}

main().catch((error) => {
  console.error(`npm start failed: ${error.message}`);
  process.exit(1);
});
