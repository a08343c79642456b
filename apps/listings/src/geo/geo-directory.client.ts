import { GEO_SUBJECTS, type City, type Station } from '@immo/contracts';
import { LRUCache } from 'lru-cache';
import { RpcCallError, type NatsRpcClient } from '@immo/service-kit';

/** Stations are looked up per ~110 m cell: neighbours share the answer and the cache stays small. */
const STATION_CELL_DEGREES = 0.001;
const STATION_RADIUS_KM = 1;
const STATION_LIMIT = 5;

/** What listings needs from the geo service. */
export interface GeoLookup {
  cityByInsee(insee: string): Promise<City | null>;
  inseeOf(zipcode: string, name: string): Promise<string | null>;
  stationsNear(lat: number, lon: number): Promise<Station[]>;
}

/** What `cached` needs of a Map or an LRU cache. */
interface PromiseCache<K, V> {
  get(key: K): Promise<V> | undefined;
  set(key: K, value: Promise<V>): unknown;
  delete(key: K): unknown;
}

/**
 * Station cells kept (about 110 m each; ~150 bytes each, stations shared). Unbounded, one per
 * distinct advert location would grow without end; too small, and the cell ingestion looked up
 * is gone by the time a lagging projection builds the document, which then waits a round trip
 * to geo per event (measured: a 50,000 bound starved the projection at 150,000 adverts).
 */
const STATION_CELLS_CACHED = 400_000;

/**
 * Cached lookups of the geo service. Reference data does not change while a process runs, so each
 * commune, postal code + name and station cell costs one request per process, not one per advert.
 * "Not found" is cached too; "geo unavailable" is not, and surfaces to the caller. Communes are
 * finite (~35,000); station cells are bounded (least recently used out), and the stations they
 * list are shared objects, one per station.
 */
export class GeoDirectoryClient implements GeoLookup {
  private readonly citiesByInsee = new Map<string, Promise<City | null>>();
  private readonly inseeByZipcodeAndName = new Map<string, Promise<string | null>>();
  private readonly stationsByCell = new LRUCache<string, Promise<Station[]>>({ max: STATION_CELLS_CACHED });
  private readonly stations = new Map<number, Station>();

  constructor(private readonly rpc: NatsRpcClient) {}

  cityByInsee(insee: string): Promise<City | null> {
    return this.cached(this.citiesByInsee, insee, () => this.lookup<City>(GEO_SUBJECTS.cityByInsee, { insee }));
  }

  async inseeOf(zipcode: string, name: string): Promise<string | null> {
    return this.cached(this.inseeByZipcodeAndName, `${zipcode}|${name.toLowerCase()}`, async () => {
      const city = await this.lookup<City>(GEO_SUBJECTS.cityByZipcodeAndName, { zipcode, name });
      return city?.insee ?? null;
    });
  }

  stationsNear(lat: number, lon: number): Promise<Station[]> {
    const cellLat = Math.round(lat / STATION_CELL_DEGREES) * STATION_CELL_DEGREES;
    const cellLon = Math.round(lon / STATION_CELL_DEGREES) * STATION_CELL_DEGREES;
    return this.cached(this.stationsByCell, `${cellLat.toFixed(3)},${cellLon.toFixed(3)}`, async () => {
      const stations = await this.rpc.request<Station[]>(GEO_SUBJECTS.stationsNear, {
        lat: cellLat,
        lon: cellLon,
        radiusKm: STATION_RADIUS_KM,
        limit: STATION_LIMIT,
      });
      return stations.map((station) => this.shared(station));
    });
  }

  private async lookup<T>(subject: string, payload: unknown): Promise<T | null> {
    try {
      return await this.rpc.request<T>(subject, payload);
    } catch (error) {
      if (error instanceof RpcCallError && error.kind === 'remote' && (error.payload?.status === 404 || error.payload?.status === 400)) return null;
      throw error;
    }
  }

  /** One object per station, whichever cells list it. */
  private shared(station: Station): Station {
    const known = this.stations.get(station.id);
    if (known) return known;
    this.stations.set(station.id, station);
    return station;
  }

  private cached<K, V>(cache: PromiseCache<K, V>, key: K, load: () => Promise<V>): Promise<V> {
    const hit = cache.get(key);
    if (hit) return hit;
    const pending = load();
    cache.set(key, pending);
    // A failed lookup (geo down, timeout) must be retried later, not remembered.
    pending.catch(() => cache.delete(key));
    return pending;
  }
}
