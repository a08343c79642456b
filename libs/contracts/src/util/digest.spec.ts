import { createHash, randomBytes } from 'node:crypto';
import { digest, type OneShotHash } from './digest';

const inputs: (string | Buffer)[] = ['', 'a', 'Appartement 3 pièces à Évry 🏡', 'x'.repeat(100_000), randomBytes(0), randomBytes(4096)];

describe('digest', () => {
  it.each(['sha1', 'sha256'] as const)('gives createHash’s %s digest for strings (as UTF-8) and buffers', (algorithm) => {
    for (const data of inputs) expect(digest(algorithm, data).equals(createHash(algorithm).update(data).digest())).toBe(true);
  });

  it.each(['sha1', 'sha256'] as const)('gives the same %s digest without crypto.hash (older Node), through createHash', (algorithm) => {
    for (const data of inputs) expect(digest(algorithm, data, null).equals(digest(algorithm, data))).toBe(true);
  });

  it('hashes in one call when the runtime has crypto.hash', () => {
    const calls: unknown[][] = [];
    const oneShot: OneShotHash = (algorithm, data, outputEncoding) => (calls.push([algorithm, data, outputEncoding]), Buffer.from('stub'));
    expect(digest('sha1', 'abc', oneShot).toString()).toBe('stub');
    expect(calls).toEqual([['sha1', 'abc', 'buffer']]);
  });
});
