import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { APP_NAMES, APP_NODE_FLAGS } from './stack';

const ROOT = join(__dirname, '..', '..', '..');

/** The node flags between `node --enable-source-maps` and the app's main file. */
function flagsOf(args: readonly string[], app: string): string[] {
  expect(args.slice(0, 2)).toEqual(['node', '--enable-source-maps']);
  expect(args.at(-1)).toBe(`dist/apps/${app}/src/main.js`);
  return args.slice(2, -1);
}

type Manifest = { kind?: string; spec?: { template?: { spec?: { containers?: { args?: string[]; resources?: { limits?: { cpu?: string } } }[] } } } };

function deploymentOf(app: string) {
  const manifests = parseAllDocuments(readFileSync(join(ROOT, 'deploy', 'k8s', 'base', `${app}.yaml`), 'utf8')).map((doc) => doc.toJS() as Manifest);
  return manifests.find((manifest) => manifest.kind === 'Deployment')?.spec?.template?.spec?.containers?.[0];
}

/** Kubernetes CPU quantities: "2", "1.5" or "500m". */
function cpus(quantity: string | undefined): number {
  if (quantity === undefined) return Number.NaN;
  return quantity.endsWith('m') ? Number(quantity.slice(0, -1)) / 1000 : Number(quantity);
}

describe('node flags of each app', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, { command?: string[] }> };

  it.each(APP_NAMES)('%s runs with the same node flags under npm start, docker compose and Kubernetes', (app) => {
    const expected = APP_NODE_FLAGS[app] ?? [];
    const command = compose.services[app]?.command;
    // Without a command of its own, the image's CMD runs the app with no extra flags.
    expect(command === undefined ? [] : flagsOf(command, app)).toEqual(expected);
    expect(flagsOf(deploymentOf(app)?.args ?? [], app)).toEqual(expected);
  });

  it.each(APP_NAMES)("%s has no more collector threads than the CPUs of its Kubernetes limit", (app) => {
    const flag = (APP_NODE_FLAGS[app] ?? []).find((f) => f.startsWith('--v8-pool-size='));
    // Node's default is four whatever the CPUs given: the flag must be there.
    expect(flag).toBeDefined();
    const threads = Number(flag?.split('=')[1]);
    expect(threads).toBeGreaterThanOrEqual(1);
    expect(threads).toBeLessThanOrEqual(cpus(deploymentOf(app)?.resources?.limits?.cpu));
  });
});
