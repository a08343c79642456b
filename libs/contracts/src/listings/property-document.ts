/**
 * The PropertyDocument read model as served by `GET /documents/properties/{id}` and embedded in
 * matches. Read models hold timestamps in UTC (`2026-03-01T10:00:00+00:00`); clients get them in
 * Paris time (`2026-03-01T11:00:00+01:00`, see `propertyDocumentInParisTime`). Fields the source did not
 * show are `null`, never absent, so that documents have one shape for filters and for clients.
 */

export interface GeoPoint {
  lat: number;
  lon: number;
}

/** An advert's point and, when its source said, how precise it is (1 house number, 2 neighbourhood). */
export interface AdvertLocation extends GeoPoint {
  accuracy?: 1 | 2;
}

/** One change of an advert field, as listed in `Advert.events`. */
export interface AdvertEvent {
  /** `price` and `surface` entries are what the price/surface variation filters look at. */
  fieldName: string;
  fieldOldValue: string;
  fieldNewValue: string;
  /** Negative for a decrease, two decimals; 0 for fields without a numeric variation. */
  percentVariation: number;
  createdAt: string;
}

export interface EnergyRating {
  /** Letter A to G. */
  category: string;
  value: number;
}

export interface AdvertContact {
  agency: string | null;
  email: string | null;
  fax: string | null;
  name: string | null;
  phone: string | null;
  reference: string | null;
}

export interface AdvertPublisher {
  category: string;
  name: string;
  /** 0 individual, 1 professional. */
  type: 0 | 1;
}

export interface Advert {
  uuid: string;
  url: string | null;
  title: string;
  description: string;
  price: number;
  priceExcludingFees: number | null;
  feesPercentage: number | null;
  feesResponsibility: 0 | 1 | null;
  condominiumFees: number | null;
  rentalCharges: number | null;
  rentalPledge: number | null;
  renterFees: number | null;
  inventoryPrice: number | null;
  surface: number | null;
  landSurface: number | null;
  room: number | null;
  bedroom: number | null;
  floor: number | null;
  floorQuantity: number | null;
  lotCount: number | null;
  constructionYear: number | null;
  elevator: boolean | null;
  furnished: boolean | null;
  energy: EnergyRating | null;
  greenHouseGas: EnergyRating | null;
  features: string[];
  /** Hosted copies. */
  pictures: string[];
  /** Addresses at the publisher. */
  picturesRemote: string[];
  virtualTour: string | null;
  contact: AdvertContact | null;
  publisher: AdvertPublisher;
  events: AdvertEvent[];
  createdAt: string;
  updatedAt: string;
  lastCrawledAt: string;
  /**
   * Not in the published Advert field table, but the site, site category and expiry filters of the
   * properties collection are advert-level and need them.
   */
  site: string;
  siteCategory: string;
  expired: boolean;
  expiredAt: string | null;
  /** Precision of the advert's point as its source gave it: 1 house number, 2 neighbourhood; null when unknown. */
  geoAccuracy: 1 | 2 | null;
}

export interface CityRef {
  code: string;
  id: number;
  name: string;
}

export interface City {
  id: number;
  cityParentId: number | null;
  name: string;
  originalName: string;
  insee: string;
  zipcode: string | null;
  open: boolean;
  hasGroupedByName: boolean;
  hasGroupedByZipcode: boolean;
  groupedCityNames: string[];
  groupedCityZipcodes: string[];
  country: CityRef;
  department: CityRef;
  region: CityRef;
  /** Renamed `location` in webhook payloads. */
  locations: GeoPoint | null;
}

export interface StationLine {
  id: number;
  name: string;
  number: string;
  /** Hex colour, e.g. `#FFCD00`. */
  color: string;
  routeName: string;
}

export interface Station {
  id: number;
  name: string;
  lines: StationLine[];
}

export const PROPERTY_DOCUMENT_CONTEXT = '/contexts/PropertyDocument';
export const PROPERTY_DOCUMENT_TYPE = 'PropertyDocument';

export interface PropertyDocument {
  '@context': typeof PROPERTY_DOCUMENT_CONTEXT;
  /** `/documents/properties/<uuid>`. */
  '@id': string;
  '@type': typeof PROPERTY_DOCUMENT_TYPE;
  uuid: string;
  /** `/properties/<uuid>`. */
  property: string;
  adverts: Advert[];
  title: string;
  description: string;
  propertyType: number;
  transactionType: number;
  /** Distinct, ascending. */
  publisherTypes: number[];
  price: number;
  pricePerMeter: number | null;
  surface: number | null;
  landSurface: number | null;
  room: number | null;
  bedroom: number | null;
  floor: number | null;
  elevator: boolean | null;
  furnished: boolean | null;
  /** True when every advert is expired. */
  expired: boolean;
  expiredAt: string | null;
  createdAt: string;
  updatedAt: string;
  lastCrawledAt: string;
  lastCrawledAdvert: string;
  locations: GeoPoint | null;
  pictures: string[];
  city: City | null;
  stations: Station[];
}

/** What each `propertyType` code is called in French (0 apartment … 6 shop): advert titles and alert e-mails. */
export const PROPERTY_TYPE_LABELS: Readonly<Record<0 | 1 | 2 | 3 | 4 | 5 | 6, string>> = {
  0: 'Appartement',
  1: 'Maison',
  2: 'Immeuble',
  3: 'Parking',
  4: 'Bureau',
  5: 'Terrain',
  6: 'Local commercial',
};
