#!/usr/bin/env node
// `npm run reset [-- --yes]`: deletes the data directory (DATA_DIR, default .data) after a
// confirmation, so the next `npm start` begins afresh (new keys, new demo data).
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { root } from './prerequisites.mjs';

const dataDir = resolve(process.env.DATA_DIR ?? join(root, '.data'));

/** A stack still running on this directory would be left without its files: refuse instead. */
function runningNatsServer() {
  const pidFile = join(dataDir, 'nats', 'nats-server.pid');
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 1) return null;
  try {
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return commandLine.includes('nats-server') && commandLine.includes(dataDir) ? pid : null;
  } catch {
    return null;
  }
}

async function main() {
  if (!existsSync(dataDir)) {
    console.log(`Nothing to reset: ${dataDir} does not exist.`);
    return;
  }
  const pid = runningNatsServer();
  if (pid !== null) {
    console.error(`A stack is running on ${dataDir} (nats-server pid ${pid}); stop it (Ctrl-C in its terminal) first.`);
    process.exit(1);
  }
  if (!process.argv.includes('--yes')) {
    if (!process.stdin.isTTY) {
      console.error(`Not deleting ${dataDir} without a confirmation: run npm run reset -- --yes`);
      process.exit(1);
    }
    const prompt = createInterface({ input: process.stdin, output: process.stdout });
    const answer = await prompt.question(`Delete ${dataDir} (events, read models, API keys, logs)? [y/N] `);
    prompt.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      console.log('Nothing deleted.');
      return;
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
  console.log(`Deleted ${dataDir}. The next npm start creates new keys and loads fresh demo data.`);
}

main().catch((error) => {
  console.error(`npm run reset failed: ${error.message}`);
  process.exit(1);
});
