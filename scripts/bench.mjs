#!/usr/bin/env node
// `npm run bench [-- scenario...]`: builds, then runs the benchmark scenarios on this machine.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { build, ensureDependencies, ensureNatsServer, root } from './prerequisites.mjs';

ensureDependencies();
process.env.NATS_SERVER_BIN = ensureNatsServer();
build();
const result = spawnSync(process.execPath, ['--enable-source-maps', join(root, 'dist', 'bench', 'src', 'run.js'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  cwd: root,
});
process.exit(result.status ?? 1);
