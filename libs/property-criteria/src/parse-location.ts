/**
 * `lat`, `lon` and `radius`. The radius needs a centre, and a centre needs both coordinates; a
 * half-given centre is refused rather than silently dropped, since the caller clearly meant a
 * geographic filter.
 */
import type { LatLon } from '@immo/contracts';
import type { ParameterReader } from './parameter-reader';
import { integerValue, numberValue } from './query-values';

export interface ParsedLocation {
  point?: LatLon;
  radiusKm?: number;
}

export function readLocation(reader: ParameterReader): ParsedLocation {
  const lat = coordinate(reader, 'lat', 90);
  const lon = coordinate(reader, 'lon', 180);
  const latGiven = reader.raw('lat') !== undefined;
  const lonGiven = reader.raw('lon') !== undefined;
  if (latGiven && !lonGiven) reader.fail('lon', 'is required with lat');
  if (lonGiven && !latGiven) reader.fail('lat', 'is required with lon');

  let radiusKm = reader.scalar('radius', reader.parameters.integerRadius ? integerValue : numberValue);
  if (radiusKm !== undefined && radiusKm <= 0) {
    reader.fail('radius', 'must be greater than 0');
    radiusKm = undefined;
  }
  if (reader.raw('radius') !== undefined && (!latGiven || !lonGiven)) reader.fail('radius', 'needs lat and lon');

  const point = lat !== undefined && lon !== undefined ? { lat, lon } : undefined;
  return { ...(point && { point }), ...(point && radiusKm !== undefined && { radiusKm }) };
}

function coordinate(reader: ParameterReader, name: 'lat' | 'lon', limit: number): number | undefined {
  const value = reader.scalar(name, numberValue);
  if (value === undefined) return undefined;
  if (Math.abs(value) > limit) {
    reader.fail(name, `must be between -${limit} and ${limit}`);
    return undefined;
  }
  return value;
}
