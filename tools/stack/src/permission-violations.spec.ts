import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { permissionViolations } from './stack-fixture';

describe('permissionViolations', () => {
  it("reads the refusals nats-server logged (each once), from the NATS nodes' logs only", () => {
    const dir = mkdtempSync(join(tmpdir(), 'violations-'));
    try {
      writeFileSync(
        join(dir, 'nats-server.log'),
        [
          '[1] 2026/11/29 02:27:27.855385 [INF] Server is ready',
          '[1] 2026/11/29 02:27:27.855385 [ERR] 127.0.0.1:36014 - cid:5 - "v2.29.3:nats.js" - Publish Violation - User "notifier", Subject "searches.cmd.create-account.v1"',
          '[1] 2026/11/29 02:27:28.000000 [ERR] 127.0.0.1:36020 - cid:9 - "v2.29.3:nats.js" - Publish Violation - User "notifier", Subject "searches.cmd.create-account.v1"',
          '[1] 2026/11/29 02:27:27.855417 [ERR] 127.0.0.1:36014 - cid:5 - "v2.29.3:nats.js" - Subscription Violation - User "notifier", Subject "_INBOX_gateway.>", SID 1',
        ].join('\n'),
      );
      writeFileSync(join(dir, 'gateway.log'), 'Publish Violation - User "x", Subject "y" (a line quoted by an app)\n');
      expect(permissionViolations(dir)).toEqual(['Publish Violation - User "notifier", Subject "searches.cmd.create-account.v1"', 'Subscription Violation - User "notifier", Subject "_INBOX_gateway.>"']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
