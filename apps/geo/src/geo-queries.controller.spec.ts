import { RpcException } from '@nestjs/microservices';
import { nearestStations, type RpcErrorPayload } from '@immo/contracts';
import { allStations, stationsNear, type AutocompleteIndex, type CityDirectory, type PoiSource } from './domain';
import { GeoQueriesController } from './geo-queries.controller';

/** The stations subject uses none of the controller's other dependencies. */
const controller = new GeoQueriesController({} as CityDirectory, {} as AutocompleteIndex, {} as PoiSource);

describe('GeoQueriesController: the stations list', () => {
  it('answers every station with its location, ranked as the stations-near lookup ranks them', () => {
    for (const payload of [{}, undefined]) {
      const located = controller.stations(payload);
      expect(located.map(({ station, location }) => ({ ...station, location }))).toEqual(allStations());
      expect(nearestStations(located, { lat: 48.8584, lon: 2.347 }, 1, 5).map((hit) => hit.station)).toEqual(stationsNear(48.8584, 2.347, 1, 5));
    }
  });

  it('refuses a payload with members it does not know, naming them', () => {
    let error: unknown;
    try {
      controller.stations({ lat: 48.85 });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(RpcException);
    const payload = (error as RpcException).getError() as RpcErrorPayload;
    expect(payload.status).toBe(400);
    expect(JSON.stringify(payload.violations)).toContain('lat');
  });
});
