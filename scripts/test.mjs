#!/usr/bin/env node
// `npm test`: type check, lint, build, then every Jest tier (unit, integration with a real
// nats-server on free ports, end-to-end through the gateway). Extra arguments go to Jest.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, ensureChromium, ensureDependencies, ensureNatsServer, root } from './prerequisites.mjs';

function step(name, command, args) {
  const started = Date.now();
  console.log(`\n▶ ${name}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: process.env });
  if (result.status !== 0) {
    console.error(`✖ ${name} failed`);
    process.exit(result.status ?? 1);
  }
  console.log(`✔ ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

try {
  ensureDependencies();
  process.env.NATS_SERVER_BIN = ensureNatsServer();
  ensureChromium();
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
process.env.NX_DAEMON = 'false';
process.env.NX_NO_CLOUD = 'true';
const bin = (name) => join(root, 'node_modules', '.bin', name);
step('type check', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
// The module-boundaries rule reads Nx's project graph, so compute it first (offline, no daemon).
step('Nx project graph', bin('nx'), ['show', 'projects']);
step('lint (Nx module boundaries, zero warnings)', bin('eslint'), ['.', '--max-warnings=0']);
console.log('\n▶ build');
build();
mkdirSync(join(root, 'coverage'), { recursive: true });
const resultsFile = join(root, 'coverage', 'jest-results.json');
const jest = spawnSync(bin('jest'), ['--ci', '--json', `--outputFile=${resultsFile}`, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
try {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  const skipped = results.numPendingTests + results.numTodoTests;
  console.log(`\njest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`);
} catch {
  console.log('\njest: no results were written');
}
if (jest.status !== 0) {
  console.error('✖ jest (unit, integration, end-to-end) failed');
  process.exit(jest.status ?? 1);
}
