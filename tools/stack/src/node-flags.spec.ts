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

describe('node flags of each app', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, { command?: string[] }> };

  it.each(APP_NAMES)('%s runs with the same heap flags under npm start, docker compose and Kubernetes', (app) => {
    const expected = APP_NODE_FLAGS[app] ?? [];
    const command = compose.services[app]?.command;
    // Without a command of its own, the image's CMD runs the app with no extra flags.
    expect(command === undefined ? [] : flagsOf(command, app)).toEqual(expected);
    const manifests = parseAllDocuments(readFileSync(join(ROOT, 'deploy', 'k8s', 'base', `${app}.yaml`), 'utf8')).map((doc) => doc.toJS() as { kind?: string; spec?: { template?: { spec?: { containers?: { args?: string[] }[] } } } });
    const deployment = manifests.find((manifest) => manifest.kind === 'Deployment');
    expect(flagsOf(deployment?.spec?.template?.spec?.containers?.[0]?.args ?? [], app)).toEqual(expected);
  });
});
