#!/usr/bin/env node
// `npm run bench [-- scenario...]`: builds, then runs the benchmark scenarios on this machine.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { build, ensureDependencies, ensureNatsServer, root } from './prerequisites.mjs';

ensureDependencies();
process.env.NATS_SERVER_BIN = ensureNatsServer();
build();
// The scenarios' clients stand in for callers on other machines: one collector thread, so that
// their collections (of the load they hold ready) do not take both of this machine's cores from
// the services measured (see APP_NODE_FLAGS in tools/stack).
const result = spawnSync(process.execPath, ['--enable-source-maps', '--v8-pool-size=1', join(root, 'dist', 'bench', 'src', 'run.js'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  cwd: root,
});
process.exit(result.status ?? 1);
