#!/usr/bin/env node
// `npm run chaos`: builds, then runs the load-and-chaos check on this machine (see tools/chaos).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { build, ensureDependencies, ensureNatsServer, root } from './prerequisites.mjs';

ensureDependencies();
process.env.NATS_SERVER_BIN = ensureNatsServer();
build();
const result = spawnSync(process.execPath, ['--enable-source-maps', join(root, 'dist', 'tools', 'chaos', 'src', 'main.js'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  cwd: root,
});
process.exit(result.status ?? 1);
