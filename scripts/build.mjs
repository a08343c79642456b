#!/usr/bin/env node
// Compiles apps and libs to dist/ with swc (type checking is `npm run typecheck`).
// Path aliases (@immo/*) are rewritten to relative requires, so `node dist/apps/<app>/src/main.js`
// runs without a loader.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export function build() {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const swc = join(root, 'node_modules', '.bin', 'swc');
  const result = spawnSync(
    swc,
    ['apps', 'libs', 'tools', 'bench', '-d', 'dist', '--copy-files', '--ignore', '**/*.spec.ts,**/test-double/**,**/*.contract.ts', '--quiet'],
    { cwd: root, stdio: 'inherit' },
  );
  if (result.status !== 0) throw new Error('build failed');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    build();
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
