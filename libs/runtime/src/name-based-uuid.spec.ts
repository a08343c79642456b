import { randomBytes } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import { nameBasedUuid } from './name-based-uuid';

const NAMESPACE = '6f1c7d2a-4b7e-4f0a-9c1d-2e3f4a5b6c7d';

describe('nameBasedUuid', () => {
  it('equals the uuid package v5 for ASCII, accented, emoji and long names (ids already stored must not change)', () => {
    const names = [
      '',
      'a',
      'synthetic-portal-a\nREF-1',
      'Appartement 3 pièces à Évry-Courcouronnes, très lumineux',
      'Maison 🏡 avec jardin',
      'x'.repeat(10_000),
      ...Array.from({ length: 200 }, () => randomBytes(64).toString('base64')),
    ];
    for (const name of names) expect(nameBasedUuid(name, NAMESPACE)).toBe(uuidv5(name, NAMESPACE));
  });

  it('refuses a namespace that is not a UUID', () => {
    expect(() => nameBasedUuid('a', 'not-a-uuid')).toThrow(/namespace/);
  });
});
