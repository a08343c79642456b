/**
 * Place filters: included cities, departments, INSEE codes and postal codes form one area, their
 * union; excluded cities, codes and postal codes always remove; a property without a city is in no
 * included area and in no excluded one (see place-filters.ts in the criteria library).
 *
 * Thousands of properties share a city, so each distinct place (the keys a city is found by, as
 * the search row lists them) is stored once with the list of its documents, and the place filters
 * are answered on places first: look up the places each key names, then take their documents.
 */
import { Bitset } from './bitset';
import { ARRAY_SLOT_BYTES, MAP_ENTRY_BYTES, stringBytes } from './memory-estimate';
import { PostingLists } from './posting-lists';
import type { SlabState } from './slab';
import type { SearchPlace } from './search-row';
import { withCapacity } from './typed-arrays';

export interface PlaceCriteria {
  includedCities: readonly number[];
  excludedCities: readonly number[];
  includedDepartments: readonly number[];
  includedInseeCodes: readonly string[];
  excludedInseeCodes: readonly string[];
  includedZipcodes: readonly string[];
  excludedZipcodes: readonly string[];
}

export interface PlaceIndexState {
  places: SearchPlace[];
  docsOfPlace: SlabState;
  placeOfDoc: Uint32Array<ArrayBuffer>;
}

export class PlaceIndex {
  private readonly placeIds = new Map<string, number>();
  private readonly places: SearchPlace[] = [];
  private readonly byCityId = new Map<number, number[]>();
  private readonly byInseeCode = new Map<string, number[]>();
  private readonly byZipcode = new Map<string, number[]>();
  private readonly byDepartmentId = new Map<number, number[]>();
  private readonly docsOfPlace = new PostingLists();
  /** Place id plus one; zero for a document without a city. */
  private placeOfDoc = new Uint32Array(0);

  exportState(): PlaceIndexState {
    return { places: this.places, docsOfPlace: this.docsOfPlace.exportState(), placeOfDoc: this.placeOfDoc };
  }

  /** Into an empty index: the places are interned again in their order, so they keep their ids. */
  importState(state: PlaceIndexState): void {
    if (this.places.length > 0) throw new Error('a place index is restored into an empty one only');
    state.places.forEach((place, id) => {
      if (this.intern(place) !== id) throw new Error(`snapshot place ${id} is listed twice`);
    });
    this.docsOfPlace.importState(state.docsOfPlace);
    this.placeOfDoc = state.placeOfDoc;
  }

  set(doc: number, place: SearchPlace | null): void {
    const next = place === null ? 0 : this.intern(place) + 1;
    const previous = this.placeOfDoc[doc] ?? 0;
    if (previous === next) return;
    if (previous > 0) this.docsOfPlace.remove(previous - 1, doc);
    if (next > 0) this.docsOfPlace.add(next - 1, doc);
    this.placeOfDoc = withCapacity(this.placeOfDoc, doc + 1);
    this.placeOfDoc[doc] = next;
  }

  remove(doc: number): void {
    this.set(doc, null);
  }

  placeOf(doc: number): SearchPlace | null {
    const id = this.placeOfDoc[doc] ?? 0;
    return id === 0 ? null : (this.places[id - 1] as SearchPlace);
  }

  /** Removes from `candidates` the documents the place criteria reject. */
  narrow(criteria: PlaceCriteria, candidates: Bitset): void {
    const excluded = new Set<number>([
      ...placesOf(this.byCityId, criteria.excludedCities),
      ...placesOf(this.byInseeCode, criteria.excludedInseeCodes),
      ...placesOf(this.byZipcode, criteria.excludedZipcodes),
    ]);
    const included = new Set<number>([
      ...placesOf(this.byCityId, criteria.includedCities),
      ...placesOf(this.byDepartmentId, criteria.includedDepartments),
      ...placesOf(this.byInseeCode, criteria.includedInseeCodes),
      ...placesOf(this.byZipcode, criteria.includedZipcodes),
    ]);
    const anyIncluded =
      criteria.includedCities.length > 0 ||
      criteria.includedDepartments.length > 0 ||
      criteria.includedInseeCodes.length > 0 ||
      criteria.includedZipcodes.length > 0;
    if (anyIncluded) {
      const area = Bitset.transient(candidates.capacity);
      for (const place of included) if (!excluded.has(place)) this.docsOfPlace.orInto(place, area);
      candidates.and(area);
    } else {
      for (const place of excluded) this.docsOfPlace.forEach(place, (doc) => candidates.delete(doc));
    }
  }

  /** Adds to `into` the documents of every place that lists the city (a commune lists its arrondissements' too). */
  collectCity(cityId: number, into: Bitset): void {
    for (const place of this.byCityId.get(cityId) ?? []) this.docsOfPlace.orInto(place, into);
  }

  byteLength(): number {
    let total = this.docsOfPlace.byteLength + this.placeOfDoc.byteLength;
    for (const [key] of this.placeIds) total += MAP_ENTRY_BYTES + stringBytes(key);
    // Each place object and its three arrays, besides what its key already counts.
    total += this.places.length * (ARRAY_SLOT_BYTES + 4 * 48);
    for (const index of [this.byCityId, this.byInseeCode, this.byZipcode, this.byDepartmentId] as Map<unknown, number[]>[]) {
      for (const ids of index.values()) total += MAP_ENTRY_BYTES + 32 + ids.length * ARRAY_SLOT_BYTES;
    }
    return total;
  }

  private intern(place: SearchPlace): number {
    const key = JSON.stringify([place.cityIds, place.inseeCodes, place.zipcodes, place.departmentId]);
    const known = this.placeIds.get(key);
    if (known !== undefined) return known;
    const id = this.places.length;
    const copy: SearchPlace = { cityIds: [...place.cityIds], inseeCodes: [...place.inseeCodes], zipcodes: [...place.zipcodes], departmentId: place.departmentId };
    this.places.push(copy);
    this.placeIds.set(key, id);
    for (const cityId of new Set(copy.cityIds)) listUnder(this.byCityId, cityId).push(id);
    for (const code of new Set(copy.inseeCodes)) listUnder(this.byInseeCode, code).push(id);
    for (const code of new Set(copy.zipcodes)) listUnder(this.byZipcode, code).push(id);
    listUnder(this.byDepartmentId, copy.departmentId).push(id);
    return id;
  }
}

function listUnder<K>(index: Map<K, number[]>, key: K): number[] {
  let list = index.get(key);
  if (list === undefined) index.set(key, (list = []));
  return list;
}

function placesOf<K>(index: ReadonlyMap<K, readonly number[]>, keys: readonly K[]): number[] {
  return keys.flatMap((key) => index.get(key) ?? []);
}
