import { readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatTable, summarise, type Row, type Scenario } from '@immo/testing';

const DIST = resolve(__dirname, '..', '..');

/** Scenarios live beside the code they measure, in `*.bench.ts` files exporting `benchScenarios`. */
function discoverScenarios(): Scenario[] {
  const files = readdirSync(DIST, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.bench.js') && !file.includes('node_modules'))
    .sort();
  const scenarios: Scenario[] = [];
  for (const file of files) {
    const loaded = require(join(DIST, file)) as { benchScenarios?: Scenario[] };
    scenarios.push(...(loaded.benchScenarios ?? []));
  }
  return scenarios;
}

/** `npm run bench [-- name...]`: runs the named scenarios (all by default) and prints one table. */
async function main(): Promise<void> {
  const all = discoverScenarios();
  const { wanted, jsonFile } = parseArguments(process.argv.slice(2));
  const selected = wanted.length ? all.filter((s) => wanted.includes(s.name)) : all;
  if (selected.length === 0) {
    process.stderr.write(`No scenario named ${wanted.join(', ')}. Known: ${all.map((s) => s.name).join(', ')}\n`);
    process.exit(2);
  }
  const rows: Row[] = [];
  for (const scenario of selected) {
    process.stdout.write(`running ${scenario.name}: ${scenario.description}\n`);
    rows.push(...summarise(scenario.name, await scenario.run()));
  }
  process.stdout.write(`\n${formatTable(rows)}\n`);
  // The same rows as JSON (one object per row), so figures can be compared run to run.
  if (jsonFile) writeFileSync(jsonFile, `${JSON.stringify(rows, null, 2)}\n`);
}

/** `[scenario...] [--json FILE]`. */
function parseArguments(args: string[]): { wanted: string[]; jsonFile: string | null } {
  const wanted: string[] = [];
  let jsonFile: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--json') {
      jsonFile = args[++i] ?? null;
      if (!jsonFile) {
        process.stderr.write('--json needs a file name\n');
        process.exit(2);
      }
    } else if (arg.startsWith('--json=')) jsonFile = arg.slice('--json='.length);
    else wanted.push(arg);
  }
  return { wanted, jsonFile };
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
