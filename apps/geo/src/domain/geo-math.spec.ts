import { greatCircleKm, MEAN_EARTH_RADIUS_KM } from '@immo/contracts';
import { haversineKm, kmToLatDegrees } from './geo-math';

describe('geo distances', () => {
  it('are the product great-circle distance on the mean Earth radius', () => {
    expect(haversineKm).toBe(greatCircleKm);
    expect(kmToLatDegrees((MEAN_EARTH_RADIUS_KM * Math.PI) / 180)).toBeCloseTo(1, 12);
    expect(haversineKm({ lat: 45, lon: 4 }, { lat: 45 + kmToLatDegrees(10), lon: 4 })).toBeCloseTo(10, 9);
  });
});
