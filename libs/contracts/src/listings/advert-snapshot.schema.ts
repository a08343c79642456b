/**
 * Advert snapshot: what a crawler saw of one advert on one source site at one instant.
 *
 * The listings service turns a stream of snapshots into advert events (see the listings domain),
 * so this contract is the only door for crawled data. It is deliberately strict about values that
 * would poison derived data (prices, surfaces, enums, URLs, dates) and lenient about the rest:
 * unknown keys are stripped rather than rejected so that crawlers can ship new fields before the
 * service reads them, and optional fields accept `null` as well as absence because crawlers
 * commonly serialise "not shown on the page" as `null`.
 *
 * `advertSnapshotSchema` checks the shape of each field. `validateSnapshot` is the entry point:
 * it adds the rules that need several fields or the clock (identity, price bounds by transaction
 * type, `seenAt` not in the future) and reports every violation at once with a property path
 * such as `publisher.type` or `pictures[2]`.
 *
 * A documented sample lives in `advert-snapshot.example.json` beside this file.
 */
import { z } from 'zod';
import type { Violation } from '../rpc/violation';
import { isPlainObject } from '@immo/runtime';
import { httpUrl } from './http-url.schema';

/** Plausibility bounds. Values outside are crawler bugs, placeholders or unit mix-ups. */
export const SNAPSHOT_BOUNDS = {
  /** Sale prices in euros: below 1,000 € is a placeholder ("1 €", "price on request"). */
  salePriceMin: 1_000,
  salePriceMax: 100_000_000,
  /** Monthly rents in euros; a parking space can rent for a few tens of euros. */
  rentMin: 10,
  rentMax: 100_000,
  /** Other amounts (fees, charges, deposits) share the sale-price ceiling. */
  amountMax: 100_000_000,
  /** Living surface in m²; larger values are almost always a land surface in the wrong field. */
  surfaceMax: 100_000,
  /** Land surface in m² (1,000 ha). */
  landSurfaceMax: 10_000_000,
  roomMax: 500,
  floorMin: -10,
  floorMax: 200,
  lotCountMax: 100_000,
  constructionYearMin: 1000,
  constructionYearMax: 2100,
  /** Energy consumption (kWh/m²/year) and emissions (kg CO2/m²/year) values. */
  energyValueMax: 10_000,
  picturesMax: 500,
  featuresMax: 500,
  /** A crawler clock may run slightly ahead of ours. */
  futureSkewMs: 5 * 60 * 1000,
} as const;

export const ENERGY_CATEGORIES = ['A', 'B', 'C', 'D', 'E', 'F', 'G'] as const;

/** 0 apartment, 1 house, 2 building, 3 parking, 4 office, 5 land, 6 shop. */
export const PROPERTY_TYPES = [0, 1, 2, 3, 4, 5, 6] as const;
/** 0 sell, 1 rent. */
export const TRANSACTION_TYPES = [0, 1] as const;
/** 0 individual, 1 professional. */
export const PUBLISHER_TYPES = [0, 1] as const;
/** 0 seller, 1 buyer. */
export const FEES_RESPONSIBILITIES = [0, 1] as const;

const dateTime = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with Z or a UTC offset' });
const amount = z.number().nonnegative().max(SNAPSHOT_BOUNDS.amountMax);
const shortText = z.string().max(500);

const energyRating = z.object({
  category: z.enum(ENERGY_CATEGORIES),
  value: z.int().nonnegative().max(SNAPSHOT_BOUNDS.energyValueMax),
});

export const advertSnapshotSchema = z.object({
  /** Source site id, e.g. `seloger`. Part of the advert identity. */
  site: z.string().trim().min(1).max(100),
  siteCategory: z.string().min(1).max(100),
  url: httpUrl.max(2048).nullish(),
  /** The publisher's own reference; preferred over the URL as identity because URLs get rewritten. */
  reference: z.string().max(200).nullish(),
  publisher: z.object({
    name: z.string().min(1).max(300),
    category: z.string().max(100),
    type: z.literal(PUBLISHER_TYPES),
  }),

  title: z.string().max(500),
  description: z.string().max(50_000),
  /** Euros; a monthly rent when transactionType is 1. Bounds depend on the transaction type. */
  price: z.number().positive().max(SNAPSHOT_BOUNDS.salePriceMax),
  priceExcludingFees: amount.nullish(),
  feesPercentage: z.number().nonnegative().max(100).nullish(),
  feesResponsibility: z.literal(FEES_RESPONSIBILITIES).nullish(),
  condominiumFees: amount.nullish(),
  rentalCharges: amount.nullish(),
  rentalPledge: amount.nullish(),
  renterFees: amount.nullish(),
  inventoryPrice: amount.nullish(),
  /** m². */
  surface: z.number().positive().max(SNAPSHOT_BOUNDS.surfaceMax).nullish(),
  /** m². */
  landSurface: z.number().positive().max(SNAPSHOT_BOUNDS.landSurfaceMax).nullish(),
  room: z.int().nonnegative().max(SNAPSHOT_BOUNDS.roomMax).nullish(),
  bedroom: z.int().nonnegative().max(SNAPSHOT_BOUNDS.roomMax).nullish(),
  floor: z.int().min(SNAPSHOT_BOUNDS.floorMin).max(SNAPSHOT_BOUNDS.floorMax).nullish(),
  floorQuantity: z.int().nonnegative().max(SNAPSHOT_BOUNDS.floorMax).nullish(),
  lotCount: z.int().nonnegative().max(SNAPSHOT_BOUNDS.lotCountMax).nullish(),
  constructionYear: z
    .int()
    .min(SNAPSHOT_BOUNDS.constructionYearMin)
    .max(SNAPSHOT_BOUNDS.constructionYearMax)
    .nullish(),
  elevator: z.boolean().nullish(),
  furnished: z.boolean().nullish(),
  energy: energyRating.nullish(),
  greenHouseGas: energyRating.nullish(),
  features: z.array(shortText).max(SNAPSHOT_BOUNDS.featuresMax).default([]),
  /** Hosted copies of the pictures. */
  pictures: z.array(httpUrl).max(SNAPSHOT_BOUNDS.picturesMax).default([]),
  /** Picture addresses at the publisher. */
  picturesRemote: z.array(httpUrl).max(SNAPSHOT_BOUNDS.picturesMax).default([]),
  virtualTour: httpUrl.nullish(),
  contact: z
    .object({
      agency: shortText.nullish(),
      email: shortText.nullish(),
      fax: shortText.nullish(),
      name: shortText.nullish(),
      phone: shortText.nullish(),
      reference: shortText.nullish(),
    })
    .nullish(),

  propertyType: z.literal(PROPERTY_TYPES),
  transactionType: z.literal(TRANSACTION_TYPES),
  location: z
    .object({
      lat: z.number().min(-90).max(90),
      lon: z.number().min(-180).max(180),
      /**
       * How precise the point is, as the source geocoded it: 1 the house number, 2 the
       * neighbourhood. Absent when the source does not say (the advert then has no accuracy and
       * no `geoAccuracy` filter keeps it).
       */
      accuracy: z.union([z.literal(1), z.literal(2)], { error: 'must be 1 (house number) or 2 (neighbourhood)' }).optional(),
    })
    .nullish(),
  /**
   * The commune: its INSEE code, or a zipcode and a name that ingestion resolves to one.
   * Corsican INSEE codes start with 2A / 2B.
   */
  commune: z
    .object({
      insee: z
        .string()
        .regex(/^(?:\d{2}|2A|2B)\d{3}$/, 'must be a 5-character INSEE code')
        .nullish(),
      zipcode: z
        .string()
        .regex(/^\d{5}$/, 'must be a 5-digit zipcode')
        .nullish(),
      name: z.string().min(1).max(200).nullish(),
    })
    .refine((c) => !!c.insee || (!!c.zipcode && !!c.name), {
      message: 'needs an INSEE code, or a zipcode and a name',
      path: ['insee'],
    }),

  /** When the publisher says the advert ends; may be in the future. */
  expiredAt: dateTime.nullish(),
  /** True when the crawler found the advert withdrawn. */
  expired: z.boolean().nullish(),
  /** When the crawler observed this state of the advert. */
  seenAt: dateTime,
});

/** A snapshot as accepted by `validateSnapshot` (defaults applied, unknown keys stripped). */
export type AdvertSnapshot = z.output<typeof advertSnapshotSchema>;
/** What a crawler may send (arrays may be omitted). */
export type AdvertSnapshotInput = z.input<typeof advertSnapshotSchema>;

/**
 * `propertyPath` is dotted with array indexes in brackets (`energy.category`, `pictures[2]`), the
 * way the JSON body is written; `(root)` when the input is not an object at all.
 */
export type SnapshotViolation = Violation;

export type SnapshotValidationResult =
  | { ok: true; snapshot: AdvertSnapshot }
  | { ok: false; violations: SnapshotViolation[] };

/**
 * Validates one crawled snapshot. `now` is injectable so that tests and replays of old crawl
 * files can pin the clock; it only bounds `seenAt` from above.
 */
export function validateSnapshot(input: unknown, now: Date = new Date()): SnapshotValidationResult {
  const parsed = advertSnapshotSchema.safeParse(input);
  const violations: SnapshotViolation[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      violations.push({ propertyPath: formatPath(issue.path), message: issue.message });
    }
  }
  // Cross-field rules run on the raw input so that they are reported together with shape
  // errors instead of surfacing only after the crawler fixed the first batch.
  crossFieldViolations(input, now, violations);
  if (violations.length > 0 || !parsed.success) return { ok: false, violations };
  return { ok: true, snapshot: parsed.data };
}

function crossFieldViolations(input: unknown, now: Date, out: SnapshotViolation[]): void {
  if (!isPlainObject(input)) return;

  const reference = input['reference'];
  const url = input['url'];
  const hasReference = typeof reference === 'string' && reference.trim() !== '';
  const hasUrl = typeof url === 'string' && url.trim() !== '';
  if (!hasReference && !hasUrl) {
    out.push({ propertyPath: 'reference', message: 'an advert needs a reference or a url to be identified' });
  }

  const price = input['price'];
  const transactionType = input['transactionType'];
  if (typeof price === 'number' && Number.isFinite(price) && price > 0) {
    if (transactionType === 1 && (price < SNAPSHOT_BOUNDS.rentMin || price > SNAPSHOT_BOUNDS.rentMax)) {
      out.push({
        propertyPath: 'price',
        message: `a monthly rent must be between ${SNAPSHOT_BOUNDS.rentMin} and ${SNAPSHOT_BOUNDS.rentMax}`,
      });
    } else if (transactionType === 0 && price < SNAPSHOT_BOUNDS.salePriceMin) {
      out.push({
        propertyPath: 'price',
        message: `a sale price must be between ${SNAPSHOT_BOUNDS.salePriceMin} and ${SNAPSHOT_BOUNDS.salePriceMax}`,
      });
    }
  }

  const seenAt = input['seenAt'];
  if (typeof seenAt === 'string') {
    const seenAtMs = Date.parse(seenAt);
    if (!Number.isNaN(seenAtMs) && seenAtMs > now.getTime() + SNAPSHOT_BOUNDS.futureSkewMs) {
      out.push({ propertyPath: 'seenAt', message: 'must not be in the future' });
    }
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}
