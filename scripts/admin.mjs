#!/usr/bin/env node
// `npm run admin -- <command>`: account and key operations against a running stack (see tools/admin).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { build, ensureDependencies, root } from './prerequisites.mjs';

ensureDependencies();
build();
const result = spawnSync(process.execPath, [join(root, 'dist', 'tools', 'admin', 'src', 'main.js'), ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
process.exit(result.status ?? 1);
