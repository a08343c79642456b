import { GEO_SUBJECTS, nearestStations, type LocatedStation } from '@immo/contracts';
import { RpcCallError, type NatsRpcClient, type RpcRequestOptions } from '@immo/service-kit';
import { GeoDirectoryClient } from './geo-directory.client';

const LINE = { id: 101, name: 'Métro 1', number: '1', color: '#FFCD00', routeName: 'La Défense – Château de Vincennes' };
const STATIONS: LocatedStation[] = [
  { station: { id: 1, name: 'Châtelet', lines: [LINE] }, location: { lat: 48.8584, lon: 2.347 } },
  { station: { id: 2, name: 'Louvre – Rivoli', lines: [LINE] }, location: { lat: 48.8609, lon: 2.3409 } },
  { station: { id: 3, name: 'Hôtel de Ville', lines: [LINE] }, location: { lat: 48.8573, lon: 2.3514 } },
  { station: { id: 2001, name: 'Part-Dieu', lines: [] }, location: { lat: 45.7606, lon: 4.8596 } },
];

/** A geo service answering the station list (and counting the requests), or failing while `down`. */
function fakeGeo() {
  const geo = { requests: [] as string[], down: false };
  const rpc = {
    request: async (subject: string) => {
      geo.requests.push(subject);
      if (geo.down) throw new RpcCallError('unavailable', subject, 'no responders');
      if (subject !== GEO_SUBJECTS.stations) throw new Error(`unexpected ${subject}`);
      return structuredClone(STATIONS);
    },
  };
  return { geo, client: new GeoDirectoryClient(rpc as unknown as NatsRpcClient) };
}

describe('GeoDirectoryClient stations', () => {
  it('asks geo for the station list once and ranks it for every location', async () => {
    const { geo, client } = fakeGeo();
    const points = [
      { lat: 48.8584, lon: 2.347 },
      { lat: 48.8601, lon: 2.3452 },
      { lat: 45.7597, lon: 4.8553 },
      { lat: 43.6, lon: 1.44 },
    ];
    const answers = await Promise.all(points.map((point) => client.stationsNear(point.lat, point.lon)));
    expect(answers.map((stations) => stations.map((station) => station.id))).toEqual([[1, 3, 2], [1, 2, 3], [2001], []]);
    for (const [i, point] of points.entries()) {
      expect(answers[i]).toEqual(nearestStations(STATIONS, point, 1, 5).map((hit) => hit.station));
    }
    await client.stationsNear(48.85, 2.35);
    expect(geo.requests).toEqual([GEO_SUBJECTS.stations]);
  });

  it('fails while geo does not answer the list, and asks again on the next call', async () => {
    const { geo, client } = fakeGeo();
    geo.down = true;
    await expect(client.stationsNear(48.8584, 2.347)).rejects.toThrow('no responders');
    await expect(client.stationsNear(48.8584, 2.347)).rejects.toThrow('no responders');
    geo.down = false;
    await expect(client.stationsNear(48.8584, 2.347)).resolves.toHaveLength(3);
    await client.stationsNear(45.7597, 4.8553);
    expect(geo.requests).toEqual([GEO_SUBJECTS.stations, GEO_SUBJECTS.stations, GEO_SUBJECTS.stations]);
  });
});

describe('GeoDirectoryClient communes', () => {
  const LYON = { insee: '69123', name: 'Lyon' };

  /** A geo service answering Lyon by INSEE code, 404 for other codes, or failing while `down`. */
  function communeGeo() {
    const geo = { requests: 0, down: false, options: [] as RpcRequestOptions[] };
    const rpc = {
      request: async (subject: string, payload: { insee: string }, options: RpcRequestOptions = {}) => {
        geo.requests++;
        geo.options.push(options);
        if (geo.down) throw new RpcCallError('unavailable', subject, 'no responders');
        if (payload.insee === LYON.insee) return { ...LYON };
        throw new RpcCallError('remote', subject, 'not found', { status: 404, title: 'Not Found', detail: `no commune ${payload.insee}` });
      },
    };
    return { geo, client: new GeoDirectoryClient(rpc as unknown as NatsRpcClient) };
  }

  it('asks geo once per commune, found or not, whether asked again while the request runs or after', async () => {
    const { geo, client } = communeGeo();
    const [first, during] = await Promise.all([client.cityByInsee('69123'), client.cityByInsee('69123')]);
    expect(first).toEqual(LYON);
    expect(during).toBe(first);
    await expect(client.cityByInsee('69123')).resolves.toBe(first);
    await expect(client.cityByInsee('99999')).resolves.toBeNull();
    await expect(client.cityByInsee('99999')).resolves.toBeNull();
    expect(geo.requests).toBe(2);
  });

  it('does not remember that geo did not answer', async () => {
    const { geo, client } = communeGeo();
    geo.down = true;
    await expect(client.cityByInsee('69123')).rejects.toThrow('no responders');
    geo.down = false;
    await expect(client.cityByInsee('69123')).resolves.toEqual(LYON);
    await client.cityByInsee('69123');
    expect(geo.requests).toBe(2);
  });

  it('sends the request id of the look-up that asks geo, and none without one', async () => {
    const { geo, client } = communeGeo();
    await client.cityByInsee('69123', 'crawl-0009');
    await client.cityByInsee('69123', 'crawl-0010');
    await client.cityByInsee('99999');
    expect(geo.options).toEqual([{ requestId: 'crawl-0009' }, {}]);
  });
});
