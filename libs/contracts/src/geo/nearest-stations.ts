import type { Station } from '../listings/property-document';
import { greatCircleKm, MEAN_EARTH_RADIUS_KM, type LatLon } from './great-circle';

/** A station and the point it is ranked from. */
export interface LocatedStation {
  station: Station;
  location: LatLon;
}

export interface StationHit {
  station: Station;
  distanceKm: number;
}

/** Kilometres per degree of latitude on the product's sphere. */
const KM_PER_LAT_DEGREE = (MEAN_EARTH_RADIUS_KM * Math.PI) / 180;

/**
 * The stations within `radiusKm` of `centre`, nearest first (ties by id), at most `limit`. The
 * one ranking behind both geo's `stations-near` answer and the stations listings puts in property
 * documents from the list geo gives it, so the two cannot drift apart. Stations further than the
 * radius in latitude alone are skipped before any trigonometry: a scan of the few hundred stations
 * costs a few microseconds.
 */
export function nearestStations(stations: readonly LocatedStation[], centre: LatLon, radiusKm: number, limit: number): StationHit[] {
  const latSpan = radiusKm / KM_PER_LAT_DEGREE;
  const hits: StationHit[] = [];
  for (const { station, location } of stations) {
    if (Math.abs(location.lat - centre.lat) > latSpan) continue;
    const distanceKm = greatCircleKm(centre, location);
    if (distanceKm <= radiusKm) hits.push({ station, distanceKm });
  }
  hits.sort((a, b) => a.distanceKm - b.distanceKm || a.station.id - b.station.id);
  return hits.slice(0, limit);
}
