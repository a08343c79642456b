/**
 * What an alert e-mail says about each property: the batch's notifications (webhook bodies, as
 * the delivery log holds them) read back and grouped by property, the newest document of each
 * kept. Only the fields the e-mail shows are read: whatever else a payload holds (the adverts'
 * contact, above all) is dropped here and can never reach the message.
 */
import { z } from 'zod';
import { ADVERT_WEBHOOK_KINDS, type AdvertWebhookKind, type NotificationKind } from '@immo/contracts';

export interface AlertEmailItem {
  kind: NotificationKind;
  /** The webhook JSON body: a `MatchPayload` for `match`, an `EventPayload` for an advert event. */
  payload: string;
  createdAt: string;
}

// Lenient per field: a document missing a figure still makes a block, without that figure.
const nullableNumber = z.number().finite().nullable().catch(null);
const advertShape = z.object({
  uuid: z.string().catch(''),
  url: z.string().nullable().catch(null),
  expired: z.boolean().catch(false),
  pictures: z.array(z.string()).catch([]),
});
const documentShape = z.object({
  uuid: z.string().min(1),
  title: z.string().catch(''),
  propertyType: nullableNumber,
  transactionType: nullableNumber,
  price: nullableNumber,
  surface: nullableNumber,
  room: nullableNumber,
  city: z.object({ name: z.string(), zipcode: z.string().nullable().catch(null) }).nullable().catch(null),
  pictures: z.array(z.string()).catch([]),
  adverts: z.array(advertShape).catch([]),
});
const matchShape = z.object({ propertyDocument: documentShape });
const adEventShape = z.object({ fieldName: z.string(), fieldOldValue: z.string(), fieldNewValue: z.string(), percentVariation: z.string() });
const eventShape = z.object({ adEvent: adEventShape, match: matchShape });

export type AlertDocument = z.infer<typeof documentShape>;
export type AlertAdvert = z.infer<typeof advertShape>;
export type AdEventFacts = z.infer<typeof adEventShape>;

export interface AlertChange {
  kind: AdvertWebhookKind;
  adEvent: AdEventFacts;
  createdAt: string;
}

/** A price change over the batch: the first old price, the last new one. */
export interface PriceChange {
  from: number;
  to: number;
  /** In percent, negative for a drop (`-5.2`). */
  percent: number;
}

/** `new`: the property matched the search in this batch; `price-drop`: its price went down; `update`: anything else. */
export type AlertCategory = 'new' | 'price-drop' | 'update';

export interface PropertyAlert {
  propertyId: string;
  /** As the newest notification about it carried it (its newest price). */
  document: AlertDocument;
  category: AlertCategory;
  priceChange: PriceChange | null;
  /** Changes other than the price, oldest first, one per kind (the newest of each). */
  otherChanges: AlertChange[];
  latestAt: string;
}

interface ReadItem {
  document: AlertDocument;
  change: AlertChange | null;
  createdAt: string;
}

const isAdvertKind = (kind: string): kind is AdvertWebhookKind => (ADVERT_WEBHOOK_KINDS as readonly string[]).includes(kind);

/** One notification read back, or null when its payload is not JSON of the shape its kind says. */
export function readAlertItem(item: AlertEmailItem): ReadItem | null {
  let body: unknown;
  try {
    body = JSON.parse(item.payload);
  } catch {
    return null;
  }
  if (item.kind === 'match') {
    const match = matchShape.safeParse(body);
    return match.success ? { document: match.data.propertyDocument, change: null, createdAt: item.createdAt } : null;
  }
  if (!isAdvertKind(item.kind)) return null;
  const event = eventShape.safeParse(body);
  if (!event.success) return null;
  return { document: event.data.match.propertyDocument, change: { kind: item.kind, adEvent: event.data.adEvent, createdAt: item.createdAt }, createdAt: item.createdAt };
}

const byTime = <T extends { createdAt: string }>(a: T, b: T) => Date.parse(a.createdAt) - Date.parse(b.createdAt);

function priceChangeOf(changes: readonly AlertChange[]): PriceChange | null {
  const prices = changes.filter((change) => change.kind === 'ad.update.price');
  const first = prices[0];
  const last = prices[prices.length - 1];
  if (first === undefined || last === undefined) return null;
  const from = Number(first.adEvent.fieldOldValue);
  const to = Number(last.adEvent.fieldNewValue);
  if (!Number.isFinite(from) || !Number.isFinite(to) || from <= 0 || from === to) return null;
  // One change: the variation listings computed; several: the variation over the batch.
  const given = Number(first.adEvent.percentVariation);
  const percent = prices.length === 1 && Number.isFinite(given) ? given : Math.round(((to - from) / from) * 10_000) / 100;
  return { from, to, percent };
}

function otherChangesOf(changes: readonly AlertChange[], isNew: boolean): AlertChange[] {
  const newestByKind = new Map<AdvertWebhookKind, AlertChange>();
  for (const change of changes) {
    if (change.kind === 'ad.update.price') continue;
    // A new property's first advert is what made it new: saying so again adds nothing.
    if (change.kind === 'property.ad.create' && isNew) continue;
    newestByKind.delete(change.kind);
    newestByKind.set(change.kind, change);
  }
  return [...newestByKind.values()];
}

const CATEGORY_ORDER: Record<AlertCategory, number> = { new: 0, 'price-drop': 1, update: 2 };

/**
 * One entry per property, new ones first, then price drops, then other changes, newest first
 * within each. `skipped` counts the notifications whose payload could not be read.
 */
export function propertyAlerts(items: readonly AlertEmailItem[]): { alerts: PropertyAlert[]; skipped: number } {
  const read = items.map(readAlertItem);
  const byProperty = new Map<string, ReadItem[]>();
  for (const item of read) {
    if (item === null) continue;
    const list = byProperty.get(item.document.uuid) ?? [];
    list.push(item);
    byProperty.set(item.document.uuid, list);
  }
  const alerts = [...byProperty.entries()].map(([propertyId, list]): PropertyAlert => {
    const ordered = [...list].sort(byTime);
    const newest = ordered[ordered.length - 1] as ReadItem;
    const changes = ordered.flatMap((item) => (item.change === null ? [] : [item.change]));
    const isNew = ordered.some((item) => item.change === null);
    const priceChange = priceChangeOf(changes);
    const category: AlertCategory = isNew ? 'new' : priceChange !== null && priceChange.to < priceChange.from ? 'price-drop' : 'update';
    return { propertyId, document: newest.document, category, priceChange, otherChanges: otherChangesOf(changes, isNew), latestAt: newest.createdAt };
  });
  alerts.sort((a, b) => CATEGORY_ORDER[a.category] - CATEGORY_ORDER[b.category] || Date.parse(b.latestAt) - Date.parse(a.latestAt));
  return { alerts, skipped: read.filter((item) => item === null).length };
}
