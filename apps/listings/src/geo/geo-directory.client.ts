import { GEO_SUBJECTS, nearestStations, type City, type LocatedStation, type Station } from '@immo/contracts';
import { RpcCallError, type NatsRpcClient } from '@immo/service-kit';

/** The stations a property document lists: within 1 km, nearest first, at most five. */
const STATION_RADIUS_KM = 1;
const STATION_LIMIT = 5;

/** A cached answer: the request under way, then its value. */
interface Cached<V> {
  pending: Promise<V> | null;
  value: V | undefined;
}

/**
 * What listings needs from the geo service. `requestId`: the request the look-up is made for
 * (listings passes ids explicitly), sent with the geo request when one is made.
 */
export interface GeoLookup {
  cityByInsee(insee: string, requestId?: string | null): Promise<City | null>;
  inseeOf(zipcode: string, name: string, requestId?: string | null): Promise<string | null>;
  stationsNear(lat: number, lon: number): Promise<Station[]>;
}

/**
 * Cached lookups of the geo service. Reference data does not change while a process runs, so each
 * commune and postal code + name costs one request per process, not one per advert. "Not found"
 * is cached too; "geo unavailable" is not, and surfaces to the caller. Communes are finite
 * (~35,000).
 *
 * Stations are a few hundred: their list is asked for once and ranked here for each location
 * (with the ranking geo itself answers `stations-near` with). Asking geo per location cost a
 * request per new advert, most of geo's CPU and a cache of hundreds of thousands of cells.
 */
export class GeoDirectoryClient implements GeoLookup {
  /**
   * Answers by key, as a promise while the request runs and as the answer once it came: a settled
   * promise kept for good is several objects more, per commune, for the collector to mark.
   */
  private readonly citiesByInsee = new Map<string, Cached<City | null>>();
  private readonly inseeByZipcodeAndName = new Map<string, Cached<string | null>>();
  private stationList: Promise<LocatedStation[]> | null = null;
  private stations: LocatedStation[] | null = null;

  constructor(private readonly rpc: NatsRpcClient) {}

  cityByInsee(insee: string, requestId: string | null = null): Promise<City | null> {
    return this.cached(this.citiesByInsee, insee, () => this.lookup<City>(GEO_SUBJECTS.cityByInsee, { insee }, requestId));
  }

  async inseeOf(zipcode: string, name: string, requestId: string | null = null): Promise<string | null> {
    return this.cached(this.inseeByZipcodeAndName, `${zipcode}|${name.toLowerCase()}`, async () => {
      const city = await this.lookup<City>(GEO_SUBJECTS.cityByZipcodeAndName, { zipcode, name }, requestId);
      return city?.insee ?? null;
    });
  }

  stationsNear(lat: number, lon: number): Promise<Station[]> {
    const near = (stations: LocatedStation[]) => nearestStations(stations, { lat, lon }, STATION_RADIUS_KM, STATION_LIMIT).map((hit) => hit.station);
    if (this.stations !== null) return Promise.resolve(near(this.stations));
    return this.loadStations().then(near);
  }

  /** The station list, asked for once; a failed request is asked again by the next caller. */
  private loadStations(): Promise<LocatedStation[]> {
    this.stationList ??= this.rpc.request<LocatedStation[]>(GEO_SUBJECTS.stations, {}).then(
      (stations) => (this.stations = stations),
      (error: unknown) => {
        this.stationList = null;
        throw error;
      },
    );
    return this.stationList;
  }

  /** Only the first request for a key is sent, with its caller's id; the callers after it share its answer. */
  private async lookup<T>(subject: string, payload: unknown, requestId: string | null): Promise<T | null> {
    try {
      return await this.rpc.request<T>(subject, payload, requestId === null ? {} : { requestId });
    } catch (error) {
      if (error instanceof RpcCallError && error.kind === 'remote' && (error.payload?.status === 404 || error.payload?.status === 400)) return null;
      throw error;
    }
  }

  private cached<K, V>(cache: Map<K, Cached<V>>, key: K, load: () => Promise<V>): Promise<V> {
    const hit = cache.get(key);
    if (hit !== undefined) return hit.pending ?? Promise.resolve(hit.value as V);
    const pending = load();
    const entry: Cached<V> = { pending, value: undefined };
    cache.set(key, entry);
    pending.then(
      (value) => {
        entry.pending = null;
        entry.value = value;
      },
      // A failed lookup (geo down, timeout) must be retried later, not remembered.
      () => cache.delete(key),
    );
    return pending;
  }
}
