import { greatCircleKm, greatCircleMetres, MEAN_EARTH_RADIUS_KM } from './great-circle';

describe('greatCircleKm (the product distance)', () => {
  const ONE_DEGREE_KM = (MEAN_EARTH_RADIUS_KM * Math.PI) / 180;

  it('uses the mean Earth radius', () => {
    expect(MEAN_EARTH_RADIUS_KM).toBe(6371.0088);
    expect(greatCircleKm({ lat: 45, lon: 4 }, { lat: 46, lon: 4 })).toBeCloseTo(ONE_DEGREE_KM, 9);
    expect(greatCircleKm({ lat: 0, lon: 0 }, { lat: 0, lon: 1 })).toBeCloseTo(ONE_DEGREE_KM, 9);
  });

  it('is zero for one point, symmetric, and half the circumference for antipodes', () => {
    const notreDame = { lat: 48.853, lon: 2.3499 };
    const bellecour = { lat: 45.7578, lon: 4.832 };
    expect(greatCircleKm(notreDame, notreDame)).toBe(0);
    expect(greatCircleKm(notreDame, bellecour)).toBeCloseTo(greatCircleKm(bellecour, notreDame), 9);
    expect(greatCircleKm(notreDame, bellecour)).toBeGreaterThan(390);
    expect(greatCircleKm(notreDame, bellecour)).toBeLessThan(394);
    expect(greatCircleKm({ lat: 0, lon: 0 }, { lat: 0, lon: 180 })).toBeCloseTo(Math.PI * MEAN_EARTH_RADIUS_KM, 6);
  });

  it('gives the same distance in metres', () => {
    const a = { lat: 45.7597, lon: 4.8553 };
    const b = { lat: 45.7615, lon: 4.8571 };
    expect(greatCircleMetres(a, b)).toBeCloseTo(greatCircleKm(a, b) * 1000, 9);
  });
});
