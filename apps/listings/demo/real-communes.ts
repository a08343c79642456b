import { readFileSync } from 'node:fs';
import type { DemoCommune } from './generate-snapshots';

/**
 * Every current metropolitan commune of at least 1,000 inhabitants (about 10,000), from the same
 * open data the geo service serves, placed at the centre of its extent: 200,000 goods spread over
 * the 37 built-in demo communes would be look-alikes that grouping rightly merges.
 */
export function realCommunes(): DemoCommune[] {
  interface RawCommune {
    code: string;
    nom: string;
    type: string;
    zone: string;
    departement: string;
    codesPostaux?: string[];
    population?: number;
  }
  const communes = JSON.parse(readFileSync(require.resolve('@etalab/decoupage-administratif/data/communes.json'), 'utf8')) as RawCommune[];
  const boxes = JSON.parse(readFileSync(require.resolve('@etalab/fr-bounding-boxes/dist/communes.json'), 'utf8')) as { id: string; bbox: [number, number, number, number] }[];
  const centres = new Map(boxes.map((box) => [box.id.slice(box.id.lastIndexOf(':') + 1), box.bbox]));
  return communes.flatMap((commune) => {
    const box = centres.get(commune.code);
    const zipcode = commune.codesPostaux?.[0];
    if (commune.type !== 'commune-actuelle' || commune.zone !== 'metro' || !box || !zipcode || (commune.population ?? 0) < 1000) return [];
    return [{ insee: commune.code, name: commune.nom, zipcode, departmentCode: commune.departement, population: commune.population ?? 0, lat: (box[1] + box[3]) / 2, lon: (box[0] + box[2]) / 2 }];
  });
}

