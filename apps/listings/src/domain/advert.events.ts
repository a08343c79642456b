/**
 * Advert domain events and the advert state they fold into.
 *
 * Type names carry their schema version (`AdvertPriceChanged.v1`): stored events are immutable,
 * so a shape change means a new name plus an upcaster (see `advert.upcast.ts`), never an edit of
 * an existing interface. Event data is plain JSON (strings, numbers, booleans, arrays, objects):
 * it goes to the event store as is.
 *
 * Every timestamp is in the canonical `YYYY-MM-DDTHH:mm:ss+00:00` form (see `timestamps.ts`).
 */
import type {
  AdvertContact,
  AdvertEvent,
  AdvertPublisher,
  AdvertSnapshot,
  EnergyRating,
  AdvertLocation,
} from '@immo/contracts';

export type PropertyType = AdvertSnapshot['propertyType'];
export type TransactionType = AdvertSnapshot['transactionType'];

export interface AdvertCommune {
  insee: string | null;
  zipcode: string | null;
  name: string | null;
}

/** Everything a crawl can change about an advert. Unknown values are `null`. */
export interface AdvertFields {
  siteCategory: string;
  url: string | null;
  publisher: AdvertPublisher;
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
  pictures: string[];
  picturesRemote: string[];
  virtualTour: string | null;
  contact: AdvertContact | null;
  propertyType: PropertyType;
  transactionType: TransactionType;
  location: AdvertLocation | null;
  commune: AdvertCommune;
  /** Expiry announced by the publisher (snapshot `expiredAt`); the advert expires once it passes. */
  expiresAt: string | null;
}

/** Fields that have their own event type and therefore never appear in `AdvertUpdated`. */
export type DedicatedField = 'price' | 'surface' | 'pictures' | 'picturesRemote';
export type AdvertFieldChanges = Partial<Omit<AdvertFields, DedicatedField>>;

export interface AdvertState extends AdvertFields {
  uuid: string;
  site: string;
  reference: string | null;
  /** Number of events folded in; the stream's last revision is `version - 1`. */
  version: number;
  expired: boolean;
  /** When the advert actually expired; null while it is live. */
  expiredAt: string | null;
  createdAt: string;
  /** Last content change (not moved by a plain recrawl). */
  updatedAt: string;
  lastCrawledAt: string;
  /** Field history in the PropertyDocument `AdvertEvent` shape, oldest first. */
  events: AdvertEvent[];
  propertyId: string | null;
}

export const ADVERT_EVENT_TYPES = {
  published: 'AdvertPublished.v1',
  priceChanged: 'AdvertPriceChanged.v1',
  surfaceChanged: 'AdvertSurfaceChanged.v1',
  picturesChanged: 'AdvertPicturesChanged.v1',
  updated: 'AdvertUpdated.v1',
  expired: 'AdvertExpired.v1',
  relisted: 'AdvertRelisted.v1',
  recrawled: 'AdvertRecrawled.v1',
  assignedToProperty: 'AdvertAssignedToProperty.v1',
} as const;

export type AdvertEventType = (typeof ADVERT_EVENT_TYPES)[keyof typeof ADVERT_EVENT_TYPES];

/** `at` is the crawl time (`seenAt`) of the snapshot that revealed the change. */
export interface AdvertPublishedData {
  advertId: string;
  site: string;
  reference: string | null;
  fields: AdvertFields;
  at: string;
}

export interface AdvertPriceChangedData {
  advertId: string;
  oldPrice: number;
  newPrice: number;
  /** Negative for a decrease, two decimals. */
  percentVariation: number;
  at: string;
}

export interface AdvertSurfaceChangedData {
  advertId: string;
  oldSurface: number | null;
  newSurface: number | null;
  /** Null when either side is unknown. */
  percentVariation: number | null;
  at: string;
}

export interface AdvertPicturesChangedData {
  advertId: string;
  oldPictures: string[];
  newPictures: string[];
  oldPicturesRemote: string[];
  newPicturesRemote: string[];
  at: string;
}

export interface AdvertUpdatedData {
  advertId: string;
  /** New values of the changed fields only. */
  changes: AdvertFieldChanges;
  /** Values those fields had before, for history and webhooks. */
  previous: AdvertFieldChanges;
  at: string;
}

export interface AdvertExpiredData {
  advertId: string;
  expiredAt: string;
  /** `withdrawn`: a crawl found it gone; `expiry-date-reached`: the announced expiry passed. */
  reason: 'withdrawn' | 'expiry-date-reached';
  /** When the expiry was noticed. */
  at: string;
  /** False when noticed by the clock rather than a crawl: lastCrawledAt must not move then. */
  crawled: boolean;
}

/** A crawl found an expired advert live again under the same identity. */
export interface AdvertRelistedData {
  advertId: string;
  previousExpiredAt: string | null;
  at: string;
}

export interface AdvertRecrawledData {
  advertId: string;
  at: string;
}

export interface AdvertAssignedToPropertyData {
  advertId: string;
  propertyId: string;
  /** The advert whose property was joined; null when the advert founded a new property. */
  matchedAdvertId: string | null;
  at: string;
}

export type AdvertPublished = { type: typeof ADVERT_EVENT_TYPES.published; data: AdvertPublishedData };
export type AdvertPriceChanged = { type: typeof ADVERT_EVENT_TYPES.priceChanged; data: AdvertPriceChangedData };
export type AdvertSurfaceChanged = { type: typeof ADVERT_EVENT_TYPES.surfaceChanged; data: AdvertSurfaceChangedData };
export type AdvertPicturesChanged = {
  type: typeof ADVERT_EVENT_TYPES.picturesChanged;
  data: AdvertPicturesChangedData;
};
export type AdvertUpdated = { type: typeof ADVERT_EVENT_TYPES.updated; data: AdvertUpdatedData };
export type AdvertExpired = { type: typeof ADVERT_EVENT_TYPES.expired; data: AdvertExpiredData };
export type AdvertRelisted = { type: typeof ADVERT_EVENT_TYPES.relisted; data: AdvertRelistedData };
export type AdvertRecrawled = { type: typeof ADVERT_EVENT_TYPES.recrawled; data: AdvertRecrawledData };
export type AdvertAssignedToProperty = {
  type: typeof ADVERT_EVENT_TYPES.assignedToProperty;
  data: AdvertAssignedToPropertyData;
};

export type AdvertDomainEvent =
  | AdvertPublished
  | AdvertPriceChanged
  | AdvertSurfaceChanged
  | AdvertPicturesChanged
  | AdvertUpdated
  | AdvertExpired
  | AdvertRelisted
  | AdvertRecrawled
  | AdvertAssignedToProperty;
