/**
 * Latency benchmark of the warm autocomplete index, free of any test runner so a bench script can
 * import and run it. The query mix imitates typing: prefixes of real commune names of every length,
 * accent-free and abbreviated spellings, postal-code prefixes, department names and codes, and a
 * few queries with exclusions. Query order is fixed (seeded), so runs are comparable.
 */
import { buildAutocompleteIndex } from './autocomplete';
import { type CityDirectory, getCityDirectory } from './city-directory';
import { seededRandom } from './points-of-interest';
import { foldAccents } from './text-normalise';

const QUERY_COUNT = 4000;
const WARM_UP_ROUNDS = 1;

export function autocompleteBenchQueries(
  count = QUERY_COUNT,
  directory: CityDirectory = getCityDirectory(),
): Array<{ query: string; excludedCitiesIds?: string[] }> {
  const random = seededRandom(20240611);
  const pick = <T>(items: ReadonlyArray<T>): T => items[Math.floor(random() * items.length)] as T;
  const queries: Array<{ query: string; excludedCitiesIds?: string[] }> = [];
  while (queries.length < count) {
    const entry = pick(directory.entries);
    const name = entry.city.originalName;
    const roll = random();
    if (roll < 0.45) queries.push({ query: name.slice(0, 1 + Math.floor(random() * name.length)) });
    else if (roll < 0.6) queries.push({ query: foldAccents(name).replace(/-/g, ' ') });
    else if (roll < 0.7) queries.push({ query: name.replace(/^Saint/, 'St').replace(/^Sainte/, 'Ste').slice(0, 3 + Math.floor(random() * 8)) });
    else if (roll < 0.8) {
      const zipcode = entry.city.zipcode ?? '75';
      queries.push({ query: zipcode.slice(0, 2 + Math.floor(random() * 4)) });
    } else if (roll < 0.9) {
      const department = pick(directory.departments);
      queries.push({ query: random() < 0.5 ? department.code : department.name.slice(0, 2 + Math.floor(random() * 6)) });
    } else {
      queries.push({ query: name.slice(0, 1 + Math.floor(random() * 3)), excludedCitiesIds: [`/cities/${entry.city.id}`] });
    }
  }
  return queries;
}

export async function benchAutocomplete(): Promise<{ name: string; samplesMs: number[] }> {
  const directory = getCityDirectory();
  const index = buildAutocompleteIndex(directory);
  const queries = autocompleteBenchQueries(QUERY_COUNT, directory);
  for (let round = 0; round < WARM_UP_ROUNDS; round++) for (const query of queries) index.search(query);
  const samplesMs: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    index.search(query);
    samplesMs.push(performance.now() - started);
  }
  return { name: 'geo.autocomplete', samplesMs };
}
