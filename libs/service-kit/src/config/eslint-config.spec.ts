import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..', '..', '..');

interface LintMessage {
  ruleId: string | null;
  message: string;
}

/** The repository's own ESLint configuration run on `source` as if it were a file of this library. */
function lint(source: string): LintMessage[] {
  const result = spawnSync(
    process.execPath,
    [join(REPO, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--stdin', '--stdin-filename', 'libs/service-kit/src/lint-probe.ts', '--format', 'json'],
    { cwd: REPO, input: source, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NX_DAEMON: 'false' } },
  );
  const [file] = JSON.parse(result.stdout) as { messages: LintMessage[] }[];
  return file?.messages ?? [];
}

const rules = (messages: LintMessage[]) => messages.map((message) => message.ruleId);

describe('the lint configuration', () => {
  it('refuses private module paths of dependencies (build output, sources, internals)', () => {
    const messages = lint(
      [
        "import { RequestOne } from 'nats/lib/nats-base-client/request';",
        "import { Hidden } from '@scope/package/dist/hidden';",
        "import { Internal } from 'some-package/internal/thing';",
        'export const used = [RequestOne, Hidden, Internal];',
        '',
      ].join('\n'),
    );
    expect(rules(messages)).toEqual(['no-restricted-imports', 'no-restricted-imports', 'no-restricted-imports']);
    expect(messages[0]?.message).toMatch(/private module path of a dependency/);
  }, 60_000);

  it('accepts entry points, documented subpaths and relative paths', () => {
    const messages = lint(
      [
        "import { connect } from 'nats';",
        "import { NatsRecordSerializer } from '@nestjs/microservices/serializers';",
        "import { Query } from 'mingo/query';",
        "import { local } from './lib/local';",
        'export const used = [connect, NatsRecordSerializer, Query, local];',
        '',
      ].join('\n'),
    );
    expect(rules(messages).filter((rule) => rule === 'no-restricted-imports')).toEqual([]);
  }, 60_000);

  it("refuses assigning to a class's prototype", () => {
    const messages = lint(['class Client {', '  send(): void {}', '}', 'Client.prototype.send = function send(): void {};', 'export { Client };', ''].join('\n'));
    expect(rules(messages)).toContain('no-restricted-syntax');
  }, 60_000);
});
