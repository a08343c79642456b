/**
 * The words and links of one property's block, in French, before any markup: the HTML and the
 * text parts both write these, so the two always say the same thing.
 */
import type { AdEventFacts, AlertAdvert, AlertCategory, AlertChange, AlertDocument, PriceChange, PropertyAlert } from './alert-properties';
import { NBSP, formatPercent, formatPrice, formatRooms, formatSurface, listed, propertyTypeName, shortened } from './french-format';

export interface PropertyBlock {
  /** `Nouveau bien`, `Baisse de prix`, `Mise à jour`. */
  label: string;
  category: AlertCategory;
  title: string;
  /** `289 000 €`, `850 € par mois`; null when the advert shows none. */
  price: string | null;
  /** `Baisse de prix : 300 000 € → 289 000 € (-3,7 %)`, or a rise. */
  priceChange: { text: string; dropped: boolean } | null;
  /** Surface, rooms, city. */
  features: string[];
  /** What else changed, one short line each. */
  changes: string[];
  picture: { url: string; alt: string } | null;
  link: string | null;
}

const LABELS: Record<AlertCategory, string> = { new: 'Nouveau bien', 'price-drop': 'Baisse de prix', update: 'Mise à jour' };
/** Crawled titles can run to a paragraph: a block's heading stays a heading. */
const TITLE_MAX = 120;
const RENT = 1;

/** The URL as the parser writes it when its scheme is one of `schemes`, else null (`javascript:`, relative, garbage). */
export function safeUrl(value: string | null, schemes: readonly string[]): string | null {
  if (value === null) return null;
  try {
    const url = new URL(value);
    return schemes.includes(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

const WEB = ['https:', 'http:'];
/** Pictures over https only: mail clients warn about (or block) mixed content. */
const PICTURE = ['https:'];

function titleOf(document: AlertDocument): string {
  const given = document.title.trim();
  if (given !== '') return shortened(given, TITLE_MAX);
  const rooms = document.room !== null && document.room > 0 ? ` ${formatRooms(document.room)}` : '';
  return `${propertyTypeName(document.propertyType)}${rooms}`;
}

function priceOf(document: AlertDocument): string | null {
  if (document.price === null || document.price <= 0) return null;
  return document.transactionType === RENT ? `${formatPrice(document.price)}${NBSP}par mois` : formatPrice(document.price);
}

function priceChangeLine(change: PriceChange): PropertyBlock['priceChange'] {
  const dropped = change.to < change.from;
  const text = `${dropped ? 'Baisse de prix' : 'Hausse de prix'}${NBSP}: ${formatPrice(change.from)} → ${formatPrice(change.to)} (${formatPercent(change.percent)})`;
  return { text, dropped };
}

function featuresOf(document: AlertDocument): string[] {
  const features: string[] = [];
  if (document.surface !== null && document.surface > 0) features.push(formatSurface(document.surface));
  if (document.room !== null && document.room > 0) features.push(formatRooms(document.room));
  if (document.city !== null) features.push(document.city.zipcode ? `${document.city.name} (${document.city.zipcode})` : document.city.name);
  return features;
}

/** Field names listings reports for `property.ad.update`, in French; contact details are not named. */
const FIELD_NAMES: Readonly<Record<string, string>> = {
  title: 'titre',
  description: 'description',
  features: 'équipements',
  room: 'pièces',
  bedroom: 'chambres',
  floor: 'étage',
  floorQuantity: 'étages',
  landSurface: 'surface du terrain',
  energy: 'diagnostic énergétique',
  greenHouseGas: 'émissions de gaz à effet de serre',
  elevator: 'ascenseur',
  furnished: 'ameublement',
  condominiumFees: 'charges de copropriété',
  rentalCharges: 'charges locatives',
  virtualTour: 'visite virtuelle',
};

function surfaceLine(adEvent: AdEventFacts): string {
  const from = Number(adEvent.fieldOldValue);
  const to = Number(adEvent.fieldNewValue);
  if (adEvent.fieldOldValue === '' || !Number.isFinite(from) || !Number.isFinite(to)) return 'La surface a changé.';
  return `Surface${NBSP}: ${formatSurface(from)} → ${formatSurface(to)}`;
}

function updatedFieldsLine(adEvent: AdEventFacts): string {
  const named = [...new Set(adEvent.fieldName.split(',').map((name) => FIELD_NAMES[name.trim()]).filter((name): name is string => name !== undefined))];
  return named.length === 0 ? 'L’annonce a été modifiée.' : `L’annonce a été modifiée (${listed(named)}).`;
}

export function changeLine(change: AlertChange): string {
  switch (change.kind) {
    case 'ad.update.surface':
      return surfaceLine(change.adEvent);
    case 'ad.update.pictures':
      return 'Les photos ont changé.';
    case 'ad.update.expired':
      return change.adEvent.fieldNewValue === 'false' ? 'L’annonce est de nouveau en ligne.' : 'L’annonce a expiré.';
    case 'property.ad.update':
      return updatedFieldsLine(change.adEvent);
    case 'property.ad.create':
      return 'Une nouvelle annonce a été publiée pour ce bien.';
    case 'ad.update.price':
      // Price changes are summed up in the block's price line.
      return '';
  }
}

const liveAdverts = (document: AlertDocument): AlertAdvert[] => document.adverts.filter((advert) => !advert.expired);

/**
 * The first advert still online: its own page, or the product's page for it when
 * `advertLinkBase` is given (`<advertLinkBase>/<advert uuid>`).
 */
function linkOf(document: AlertDocument, advertLinkBase: string | undefined): string | null {
  for (const advert of liveAdverts(document)) {
    if (advertLinkBase !== undefined) {
      if (advert.uuid === '') continue;
      return safeUrl(`${advertLinkBase.replace(/\/+$/, '')}/${encodeURIComponent(advert.uuid)}`, WEB);
    }
    const url = safeUrl(advert.url, WEB);
    if (url !== null) return url;
  }
  return null;
}

function pictureOf(document: AlertDocument, alt: string): PropertyBlock['picture'] {
  const candidates = [...document.pictures, ...liveAdverts(document).flatMap((advert) => advert.pictures)];
  for (const candidate of candidates) {
    const url = safeUrl(candidate, PICTURE);
    if (url !== null) return { url, alt };
  }
  return null;
}

export function propertyBlock(alert: PropertyAlert, advertLinkBase?: string): PropertyBlock {
  const { document } = alert;
  const title = titleOf(document);
  return {
    label: LABELS[alert.category],
    category: alert.category,
    title,
    price: priceOf(document),
    priceChange: alert.priceChange === null ? null : priceChangeLine(alert.priceChange),
    features: featuresOf(document),
    changes: alert.otherChanges.map(changeLine).filter((line) => line !== ''),
    picture: pictureOf(document, title),
    link: linkOf(document, advertLinkBase),
  };
}
