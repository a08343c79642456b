import { greatCircleMetres, MEAN_EARTH_RADIUS_KM } from '@immo/contracts';
import { distanceMeters } from './property-grouping';

describe('property grouping distance', () => {
  it('is the product great-circle distance on the mean Earth radius', () => {
    const pairs = [
      [45.7597, 4.8553, 45.7615, 4.8571], // about 240 m in Lyon, the scale the 300 m rule reads
      [48.853, 2.3499, 48.8606, 2.3376],
      [43.2965, 5.3698, 45.7578, 4.832], // Marseille to Lyon
    ] as const;
    for (const [lat1, lon1, lat2, lon2] of pairs) {
      expect(distanceMeters(lat1, lon1, lat2, lon2)).toBe(greatCircleMetres({ lat: lat1, lon: lon1 }, { lat: lat2, lon: lon2 }));
    }
    expect(distanceMeters(45, 4, 46, 4)).toBeCloseTo((MEAN_EARTH_RADIUS_KM * 1000 * Math.PI) / 180, 3);
  });
});
