#!/usr/bin/env node
// `npm run tour [-- --url <base URL>]`: a one-minute tour of saved-search alerts against a running
// stack (see tools/tour). Builds first, like the other tools.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { build, ensureDependencies, root } from './prerequisites.mjs';

ensureDependencies();
build();
// Ctrl-C reaches the tour too (same process group): it deletes its search before leaving, so this
// launcher waits for it instead of dying first and leaving its output after the shell's prompt.
process.on('SIGINT', () => {});
const result = spawnSync(process.execPath, [join(root, 'dist', 'tools', 'tour', 'src', 'main.js'), ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
process.exit(result.status ?? 1);
