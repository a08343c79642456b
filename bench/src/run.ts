import { formatTable, summarise, type Row, type Scenario } from './harness';
import { SCENARIOS } from './scenarios';

/** `npm run bench [-- name...]`: runs the named scenarios (all by default) and prints one table. */
async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const selected: Scenario[] = wanted.length ? SCENARIOS.filter((s) => wanted.includes(s.name)) : SCENARIOS;
  if (selected.length === 0) {
    process.stderr.write(`No scenario named ${wanted.join(', ')}. Known: ${SCENARIOS.map((s) => s.name).join(', ')}\n`);
    process.exit(2);
  }
  const rows: Row[] = [];
  for (const scenario of selected) {
    process.stdout.write(`running ${scenario.name}: ${scenario.description}\n`);
    rows.push(...summarise(scenario.name, await scenario.run()));
  }
  process.stdout.write(`\n${formatTable(rows)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
