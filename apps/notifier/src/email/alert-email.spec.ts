import {
  matchIri,
  samplePropertyDocument,
  sampleAdvert,
  webhookPropertyDocument,
  type AdvertWebhookKind,
  type EventPayload,
  type MatchPayload,
  type PropertyDocument,
} from '@immo/contracts';
import { EmptyAlertEmailError, renderAlertEmail, type AlertEmailInput, type AlertEmailItem } from './alert-email';
import { NARROW_NBSP, NBSP } from './french-format';

const SEARCH_ID = 'a1b2c3d4-1111-4aaa-8bbb-000000000001';
const UNSUBSCRIBE_URL = 'https://alerts.example.com/public/search/disable-notifications?searchToken=tok-123&source=email';
const SEARCH_TITLE = 'Appartements Lyon 3e';
const QUOTED_TITLE = `«${NBSP}${SEARCH_TITLE}${NBSP}»`;
const UNSUBSCRIBE_LABEL = 'Ne plus recevoir les alertes de cette recherche';

let counter = 0;
/** A property of its own (uuid, advert, url), from the contracts' sample. */
function aProperty(overrides: Partial<PropertyDocument> = {}): PropertyDocument {
  counter++;
  const suffix = String(counter).padStart(12, '0');
  const uuid = `0b6f7a1e-3c2d-4e5f-8a9b-${suffix}`;
  const advert = { ...sampleAdvert(), uuid: `1a2b3c4d-0000-4000-8000-${suffix}`, url: `https://synthetic-portal-a.example/annonces/SPA-${counter}` };
  return { ...samplePropertyDocument(uuid), adverts: [advert], ...overrides };
}

/** As the searches service's matcher writes a Match payload (see matching/webhook-payloads.ts). */
function matchPayload(document: PropertyDocument, createdAt: string, hideContact = false): MatchPayload {
  return {
    '@context': '/contexts/Match',
    '@id': matchIri(`5e0c2a8b-7d41-4f3e-9a6c-${document.uuid.slice(-12)}`),
    '@type': 'Match',
    property: `/documents/properties/${document.uuid}`,
    search: `/searches/${SEARCH_ID}`,
    createdAt,
    updatedAt: createdAt,
    propertyDocument: webhookPropertyDocument(document, hideContact),
  };
}

let clock = Date.parse('2026-03-05T08:00:00Z');
const nextTime = () => new Date((clock += 60_000)).toISOString();

function matchItem(document: PropertyDocument, createdAt = nextTime()): AlertEmailItem {
  return { kind: 'match', payload: JSON.stringify(matchPayload(document, createdAt)), createdAt };
}

function eventItem(kind: AdvertWebhookKind, change: Omit<EventPayload['adEvent'], 'createdAt'>, document: PropertyDocument, createdAt = nextTime()): AlertEmailItem {
  const payload: EventPayload = { event: kind, adEvent: { ...change, createdAt }, match: matchPayload(document, createdAt) };
  return { kind, payload: JSON.stringify(payload), createdAt };
}

/** The event listings sends when an advert's price goes from `from` to `to`; the document already carries the new price. */
function priceItem(document: PropertyDocument, from: number, to: number, percentVariation: string): AlertEmailItem {
  return eventItem('ad.update.price', { fieldName: 'price', fieldOldValue: String(from), fieldNewValue: String(to), percentVariation }, { ...document, price: to });
}

const render = (items: AlertEmailItem[], overrides: Partial<AlertEmailInput> = {}) =>
  renderAlertEmail({ searchTitle: SEARCH_TITLE, items, unsubscribeUrl: UNSUBSCRIBE_URL, ...overrides });

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('renderAlertEmail', () => {
  describe('subject', () => {
    it('counts one new property in the singular', () => {
      expect(render([matchItem(aProperty())]).subject).toBe(`1${NBSP}nouveau bien pour ${QUOTED_TITLE}`);
    });

    it('counts several new properties in the plural', () => {
      const items = [matchItem(aProperty()), matchItem(aProperty()), matchItem(aProperty())];
      expect(render(items).subject).toBe(`3${NBSP}nouveaux biens pour ${QUOTED_TITLE}`);
    });

    it('names the new price and the drop when the batch is one price drop', () => {
      const subject = render([priceItem(aProperty(), 289_600, 274_550, '-5.2')]).subject;
      expect(subject).toBe(`Baisse de prix${NBSP}: 274${NARROW_NBSP}550${NBSP}€ (-5,2${NBSP}%) pour ${QUOTED_TITLE}`);
    });

    it('counts price drops of several properties', () => {
      const items = [priceItem(aProperty(), 300_000, 270_000, '-10'), priceItem(aProperty(), 200_000, 190_000, '-5')];
      expect(render(items).subject).toBe(`Baisses de prix${NBSP}: 2${NBSP}biens pour ${QUOTED_TITLE}`);
    });

    it('lists new properties, price drops and other changes together in a mixed batch', () => {
      const items = [matchItem(aProperty()), matchItem(aProperty()), priceItem(aProperty(), 300_000, 270_000, '-10')];
      expect(render(items).subject).toBe(`2${NBSP}nouveaux biens et 1${NBSP}baisse de prix pour ${QUOTED_TITLE}`);
      const pictures = eventItem('ad.update.pictures', { fieldName: 'pictures', fieldOldValue: '', fieldNewValue: '', percentVariation: '0' }, aProperty());
      expect(render([...items, pictures]).subject).toBe(`2${NBSP}nouveaux biens, 1${NBSP}baisse de prix et 1${NBSP}bien mis à jour pour ${QUOTED_TITLE}`);
    });

    it('says "votre recherche" for a search without a title', () => {
      expect(render([matchItem(aProperty())], { searchTitle: null }).subject).toBe(`1${NBSP}nouveau bien pour votre recherche`);
      expect(render([matchItem(aProperty())], { searchTitle: '   ' }).subject).toBe(`1${NBSP}nouveau bien pour votre recherche`);
    });

    it('shortens a long search title', () => {
      const subject = render([matchItem(aProperty())], { searchTitle: 'Maisons avec jardin '.repeat(10) }).subject;
      expect([...subject].length).toBeLessThan(100);
      expect(subject).toMatch(new RegExp(`…${NBSP}»$`));
    });

    it('says that a preview built from a sample is an example', () => {
      const email = render([matchItem(aProperty())], { example: true });
      expect(email.subject).toBe(`Exemple${NBSP}: 1${NBSP}nouveau bien pour ${QUOTED_TITLE}`);
      expect(email.html).toContain(`Exemple${NBSP}: cette recherche n’a pas encore envoyé d’alerte.`);
      expect(email.text).toContain(`Exemple${NBSP}: cette recherche n’a pas encore envoyé d’alerte.`);
    });
  });

  describe('figures in French', () => {
    const property = aProperty({ title: 'Appartement 3 pièces 64 m²', price: 289_600, surface: 45.5, room: 3 });
    const email = render([matchItem(property), priceItem(property, 289_600, 274_550, '-5.2')]);

    it.each(['html', 'text'] as const)('writes the newest price, the drop, surface, rooms and city in the %s part', (part) => {
      expect(email[part]).toContain(`274${NARROW_NBSP}550${NBSP}€`);
      expect(email[part]).toContain(`Baisse de prix${NBSP}: 289${NARROW_NBSP}600${NBSP}€ → 274${NARROW_NBSP}550${NBSP}€ (-5,2${NBSP}%)`);
      expect(email[part]).toContain(`45,5${NBSP}m²`);
      expect(email[part]).toContain(`3${NBSP}pièces`);
      expect(email[part]).toContain('Lyon 3e Arrondissement (69003)');
    });

    it('writes a rent per month and a single room in the singular', () => {
      const rental = render([matchItem(aProperty({ transactionType: 1, price: 850, room: 1 }))]);
      expect(rental.text).toContain(`850${NBSP}€${NBSP}par mois`);
      expect(rental.text).toContain(`1${NBSP}pièce ·`);
    });

    it('says a price is not given rather than printing 0 €', () => {
      const email = render([matchItem(aProperty({ price: 0 }))]);
      expect(email.text).toContain('Prix non communiqué');
      expect(email.text).not.toContain(`0${NBSP}€`);
    });
  });

  describe('escaping', () => {
    const hostile = `<script>alert("x")</script> & 'quoted'`;
    const escaped = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;';

    it('escapes a crawled advert title in the HTML part, in text and in the picture alt', () => {
      const property = aProperty({ title: hostile, pictures: ['https://img.example/1.jpg'] });
      const { html, text } = render([matchItem(property)]);
      expect(html).not.toContain('<script');
      expect(html).toMatch(new RegExp(`<h2 [^>]*><a [^>]*>${escaped.replace(/[()]/g, '\\$&')}</a></h2>`));
      expect(html).toContain(`alt="${escaped}"`);
      expect(occurrences(html, escaped)).toBeGreaterThanOrEqual(2);
      // The text part is plain text: the title is written as it is, and nothing interprets it.
      expect(text).toContain(hostile);
    });

    it('escapes the search title', () => {
      const { html, subject } = render([matchItem(aProperty())], { searchTitle: hostile });
      expect(html).not.toContain('<script');
      expect(html).toContain(escaped);
      expect(subject).toContain(hostile);
    });

    it('keeps a quote in an advert URL from closing the attribute', () => {
      const property = aProperty();
      property.adverts[0]!.url = 'https://portal.example/a"onmouseover="alert(1)';
      const { html } = render([matchItem(property)]);
      expect(html).not.toContain('"onmouseover');
      expect(html).toContain('href="https://portal.example/a%22onmouseover=%22alert(1)"');
    });

    it('links to no javascript: URL and shows only https pictures', () => {
      const property = aProperty({ pictures: ['http://img.example/plain.jpg', 'javascript:alert(1)'] });
      property.adverts[0]!.url = 'javascript:alert(1)';
      const { html, text } = render([matchItem(property)]);
      expect(html).not.toContain('javascript:');
      expect(html).not.toContain('<img');
      expect(text).not.toContain('Voir l’annonce');
    });
  });

  describe('links and pictures', () => {
    it('shows the first https picture with its size and alt text, and links the first advert still online', () => {
      const property = aProperty({ title: 'Maison 5 pièces', pictures: ['http://img.example/plain.jpg', 'https://img.example/1.jpg', 'https://img.example/2.jpg'] });
      const expired = { ...sampleAdvert(), uuid: '1a2b3c4d-0000-4000-8000-0000000000ee', url: 'https://portal-b.example/expired', expired: true };
      property.adverts = [expired, ...property.adverts];
      const { html, text } = render([matchItem(property)]);
      expect(html).toContain('<img src="https://img.example/1.jpg" width="552" height="414" alt="Maison 5 pièces"');
      expect(occurrences(html, '<img')).toBe(1);
      expect(html).toContain(`href="${property.adverts[1]!.url}"`);
      expect(html).not.toContain('https://portal-b.example/expired');
      expect(text).toContain(`Voir l’annonce${NBSP}: ${property.adverts[1]!.url}`);
    });

    it('links to the product’s page of the advert when advertLinkBase is given', () => {
      const property = aProperty();
      const { html, text } = render([matchItem(property)], { advertLinkBase: 'https://app.example.com/annonces/' });
      const link = `https://app.example.com/annonces/${property.adverts[0]!.uuid}`;
      expect(html).toContain(`href="${link}"`);
      expect(text).toContain(link);
      expect(text).not.toContain(property.adverts[0]!.url!);
    });

    it('puts the unsubscribe link in both parts, escaped in the HTML', () => {
      const { html, text } = render([matchItem(aProperty())]);
      expect(html).toContain(`<a href="${UNSUBSCRIBE_URL.replace('&', '&amp;')}"`);
      expect(html).toContain(`>${UNSUBSCRIBE_LABEL}</a>`);
      expect(text).toContain(`${UNSUBSCRIBE_LABEL}${NBSP}: ${UNSUBSCRIBE_URL}`);
    });

    it('refuses an unsubscribe URL that is not an absolute http(s) URL', () => {
      expect(() => render([matchItem(aProperty())], { unsubscribeUrl: '/public/search/disable-notifications' })).toThrow(/unsubscribe URL/);
      expect(() => render([matchItem(aProperty())], { unsubscribeUrl: 'javascript:alert(1)' })).toThrow(/unsubscribe URL/);
    });
  });

  describe('one block per property', () => {
    it('gathers the facts of one property in one block, with its newest price', () => {
      const flat = aProperty({ title: 'Appartement lumineux', price: 300_000, surface: 60 });
      const house = aProperty({ title: 'Maison avec jardin', propertyType: 1 });
      const items = [
        matchItem(flat),
        matchItem(house),
        priceItem(flat, 300_000, 285_000, '-5'),
        eventItem('ad.update.surface', { fieldName: 'surface', fieldOldValue: '60', fieldNewValue: '62', percentVariation: '3.33' }, { ...flat, price: 285_000, surface: 62 }),
      ];
      const { html, text } = render(items);
      expect(occurrences(html, '<h2')).toBe(2);
      expect(occurrences(text, 'Appartement lumineux')).toBe(1);
      expect(occurrences(text, 'Maison avec jardin')).toBe(1);
      expect(text).toContain(`285${NARROW_NBSP}000${NBSP}€ · 62${NBSP}m²`);
      expect(text).toContain(`Surface${NBSP}: 60${NBSP}m² → 62${NBSP}m²`);
      expect(text).not.toMatch(new RegExp(`^300${NARROW_NBSP}000${NBSP}€`, 'm'));
    });

    it('sums up several price changes of one property from the first old price to the last new one', () => {
      const flat = aProperty();
      const { text, subject } = render([priceItem(flat, 300_000, 290_000, '-3.33'), priceItem(flat, 290_000, 270_000, '-6.9')]);
      expect(text).toContain(`Baisse de prix${NBSP}: 300${NARROW_NBSP}000${NBSP}€ → 270${NARROW_NBSP}000${NBSP}€ (-10${NBSP}%)`);
      expect(subject).toBe(`Baisse de prix${NBSP}: 270${NARROW_NBSP}000${NBSP}€ (-10${NBSP}%) pour ${QUOTED_TITLE}`);
    });

    it('says in a short French line what other advert events changed', () => {
      const blank = { fieldOldValue: '', fieldNewValue: '', percentVariation: '0' };
      const lines = (kind: AdvertWebhookKind, change: Omit<EventPayload['adEvent'], 'createdAt'>) => render([eventItem(kind, change, aProperty())]).text;
      expect(lines('ad.update.pictures', { fieldName: 'pictures', ...blank })).toContain('Les photos ont changé.');
      expect(lines('ad.update.expired', { fieldName: 'expired', fieldOldValue: 'false', fieldNewValue: 'true', percentVariation: '0' })).toContain('L’annonce a expiré.');
      expect(lines('property.ad.update', { fieldName: 'title,description,contact', ...blank })).toContain('L’annonce a été modifiée (titre et description).');
      expect(lines('property.ad.create', { fieldName: 'createdAt', ...blank })).toContain('Une nouvelle annonce a été publiée pour ce bien.');
      expect(lines('ad.update.price', { fieldName: 'price', fieldOldValue: '250000', fieldNewValue: '260000', percentVariation: '4' })).toContain(
        `Hausse de prix${NBSP}: 250${NARROW_NBSP}000${NBSP}€ → 260${NARROW_NBSP}000${NBSP}€ (+4${NBSP}%)`,
      );
    });

    it('prints no contact data, even when a payload still holds some', () => {
      const property = aProperty();
      property.adverts[0]!.contact = { agency: 'Agence du Parc', email: 'agent@agence.example', fax: null, name: 'Jeanne Martin', phone: '06 12 34 56 78', reference: 'REF-991' };
      const { html, text } = render([matchItem(property)]);
      for (const value of ['Agence du Parc', 'agent@agence.example', 'Jeanne Martin', '06 12 34 56 78', 'REF-991']) {
        expect(html).not.toContain(value);
        expect(text).not.toContain(value);
      }
    });
  });

  describe('batches it cannot render in full', () => {
    it('skips a payload it cannot read and renders the others', () => {
      const readable = aProperty({ title: 'Studio rénové' });
      const items: AlertEmailItem[] = [
        { kind: 'match', payload: '{"@type": "Match", truncated', createdAt: nextTime() },
        { kind: 'ad.update.price', payload: JSON.stringify({ event: 'ad.update.price' }), createdAt: nextTime() },
        matchItem(readable),
      ];
      const email = render(items);
      expect(email.subject).toBe(`1${NBSP}nouveau bien pour ${QUOTED_TITLE}`);
      expect(occurrences(email.text, 'Studio rénové')).toBe(1);
    });

    it('refuses an empty batch with a clear error', () => {
      expect(() => render([])).toThrow(EmptyAlertEmailError);
      expect(() => render([])).toThrow('An alert e-mail needs at least one notification: the batch is empty.');
    });

    it('refuses a batch of which nothing could be read', () => {
      expect(() => render([{ kind: 'match', payload: 'not json', createdAt: nextTime() }])).toThrow(/None of the 1 notifications of the batch could be read/);
    });
  });

  describe('HTML for mail clients', () => {
    const { html } = render([matchItem(aProperty({ pictures: ['https://img.example/1.jpg'] }))]);

    it('lays out with presentation tables at most 600 px wide, styles inline', () => {
      expect(html).toMatch(/^<!DOCTYPE html>\n<html lang="fr">/);
      expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(html).toContain('<table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;');
      expect(html).not.toMatch(/<(script|style|link|iframe|form)\b/i);
      expect(html).not.toMatch(/\sclass=/);
      expect(html).not.toContain('@font-face');
    });

    it('has a hidden preheader naming the first property', () => {
      expect(html).toMatch(/<div style="display:none;[^"]*">Appartement 3 pièces 64 m² · 289.000.€<\/div>/);
    });
  });
});
