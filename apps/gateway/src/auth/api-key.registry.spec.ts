import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKeyRegistry } from './api-key.registry';

describe('ApiKeyRegistry', () => {
  it('accepts configured keys and the key file of the data directory', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'keys-'));
    writeFileSync(join(dataDir, 'api-key'), 'from-file-key\n');
    const registry = new ApiKeyRegistry({ apiKeys: ['configured-key', ''], dataDir });
    expect(registry.identify('configured-key')).toMatchObject({ admin: false });
    expect(registry.identify('from-file-key')).toMatchObject({ admin: false });
    expect(registry.size).toBe(2);
  });

  it('refuses unknown, empty and missing keys', () => {
    const registry = new ApiKeyRegistry({ apiKeys: ['configured-key'] });
    expect(registry.identify('configured-key ')).toBeNull();
    expect(registry.identify('')).toBeNull();
    expect(registry.identify(undefined)).toBeNull();
  });

  it('marks the admin key and never exposes a key in its id', () => {
    const registry = new ApiKeyRegistry({ apiKeys: [], adminKey: 'admin-key-0123456789' });
    const identity = registry.identify('admin-key-0123456789');
    expect(identity?.admin).toBe(true);
    expect(identity?.keyId).not.toContain('admin');
  });
});
