#!/usr/bin/env node
// `npm run demo:feed -- --rate N [--seed S] [--url URL]`: synthetic advert changes into a running
// stack until Ctrl-C (see tools/demo-feed).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { build, ensureDependencies, root } from './prerequisites.mjs';

ensureDependencies();
build();
const child = spawn(process.execPath, [join(root, 'dist', 'apps', 'listings', 'demo', 'feed-cli.js'), ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
// Ctrl-C reaches the feed from the terminal; forwarding it too would read as a second Ctrl-C
// (stop at once). Wait instead, so its totals print before the prompt returns.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)));
