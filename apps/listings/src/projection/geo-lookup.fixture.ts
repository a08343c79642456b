import type { City } from '@immo/contracts';
import type { GeoLookup } from '../geo/geo-directory.client';

/** Reference data is the geo service's business; here a deterministic stand-in answers. */
export const geoStandIn: GeoLookup = {
  async cityByInsee(insee: string): Promise<City | null> {
    return {
      id: Number(insee.replace(/^2A/, '201').replace(/^2B/, '202')),
      cityParentId: null,
      name: `Commune ${insee}`,
      originalName: `Commune ${insee}`,
      insee,
      zipcode: null,
      open: true,
      hasGroupedByName: false,
      hasGroupedByZipcode: false,
      groupedCityNames: [],
      groupedCityZipcodes: [],
      country: { code: 'FR', id: 1, name: 'France' },
      department: { code: insee.slice(0, 2), id: 1, name: 'Département' },
      region: { code: '11', id: 11, name: 'Région' },
      locations: { lat: 45, lon: 4 },
    };
  },
  async inseeOf() {
    return null;
  },
  async stationsNear() {
    return [{ id: 1, name: 'Gare', lines: [{ id: 1, name: 'Ligne 1', number: '1', color: '#FFCD00', routeName: 'A – B' }] }];
  },
};
