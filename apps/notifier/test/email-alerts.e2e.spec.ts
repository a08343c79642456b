import type { SearchRecord } from '@immo/contracts';
import { startSmtpCatcher, type CaughtEmail, type SmtpCatcher } from '@immo/testing';
import { aSnapshot, createSearch, ingest, startAlertsFixture, type AlertsFixture } from './alerts-fixture';

const WINDOW_MS = 1_500;

/** The link of the e-mail's List-Unsubscribe header, pointed at this stack's gateway. */
function unsubscribeLink(email: CaughtEmail, baseUrl: string): string {
  const headers = email.raw.split(/\r?\n\r?\n/)[0]?.replace(/\r?\n[ \t]+/g, ' ') ?? '';
  const link = /^List-Unsubscribe: <([^>]+)>/m.exec(headers)?.[1];
  if (!link) throw new Error('no List-Unsubscribe link');
  const url = new URL(link);
  return `${baseUrl}${url.pathname}${url.search}`;
}

describe('e-mail alerts end to end (the stack, a real SMTP server on loopback)', () => {
  let smtp: SmtpCatcher;
  let fixture: AlertsFixture;

  beforeAll(async () => {
    smtp = await startSmtpCatcher();
    fixture = await startAlertsFixture({ SMTP_URL: smtp.url, MAIL_BATCH_WINDOW_MS: String(WINDOW_MS), MAIL_FROM: 'Immo Alerts <alertes@immo.test>' });
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
    await smtp?.close();
  });

  const getSearch = async (search: SearchRecord) => (await fixture.stack.get(`/searches/${search.id}`, fixture.as)).body as SearchRecord;

  it('sends a search with a notificationRecipient and no endpoint its match by e-mail, in French with both parts, and the one-click link turns its notifications off', async () => {
    const search = await createSearch(fixture, { title: 'Appartements Lyon 3e', includedCities: ['/cities/69123'], notificationEnabled: true, notificationRecipient: 'ana@example.org' });
    const flat = aSnapshot();
    const sentAt = Date.now();
    await ingest(fixture, flat);
    const [email] = await smtp.waitFor(1, 20_000, 'ana@example.org');
    const parsed = (email as CaughtEmail).parsed;
    // Held for the batch window, then sent.
    expect((email as CaughtEmail).atMs - sentAt).toBeGreaterThanOrEqual(WINDOW_MS - 200);
    // French typography: no-break spaces inside the quotes and between a number and its noun.
    expect(parsed.subject?.replace(/[\u00a0\u202f]/g, ' ')).toBe('1 nouveau bien pour « Appartements Lyon 3e »');
    expect(parsed.from?.text).toContain('alertes@immo.test');
    expect(parsed.html).toContain(String(flat['url']));
    expect(parsed.text).toContain(String(flat['url']));

    const deliveries = await fixture.stack.get(`/searches/${search.id}/deliveries`, fixture.as);
    expect((deliveries.body as { 'hydra:member': { channel: string; endpoint: string; status: string }[] })['hydra:member']).toEqual(
      expect.arrayContaining([expect.objectContaining({ channel: 'email', endpoint: 'mailto:ana@example.org', status: 'delivered' })]),
    );

    const link = unsubscribeLink(email as CaughtEmail, fixture.stack.stack.baseUrl);
    // Opening the link shows a page and changes nothing.
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Me désabonner');
    expect((await getSearch(search)).notificationEnabled).toBe(true);
    // The mail client's one click (RFC 8058).
    const clicked = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(clicked.status).toBe(200);
    expect(await clicked.json()).toEqual({ success: true });
    expect((await getSearch(search)).notificationEnabled).toBe(false);

    await ingest(fixture, aSnapshot());
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 2_000));
    expect(smtp.received.filter((received) => received.to === 'ana@example.org')).toHaveLength(1);
  }, 60_000);

  it('refuses a one-click post without its token, naming it', async () => {
    const refused = await fetch(`${fixture.stack.stack.baseUrl}/public/search/disable-notifications`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('searchToken');
  });

  it('loses no e-mail when the notifier is killed (kill -9) while a batch waits: the restarted one sends it', async () => {
    await createSearch(fixture, { title: 'Bordeaux', includedCities: ['/cities/33063'], notificationEnabled: true, notificationRecipient: 'bruno@example.org' });
    const flats = [aSnapshot({}, 'bordeaux'), aSnapshot({}, 'bordeaux')];
    await ingest(fixture, ...flats);
    // Killed within the batch window: the notifications are in its ledger waiting (or, if not yet
    // taken in, still unacknowledged in their stream); either way the restarted notifier sends them.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await fixture.stack.stack.killApp('notifier');
    await fixture.stack.stack.restartApp('notifier');
    const [email] = await smtp.waitFor(1, 30_000, 'bruno@example.org');
    for (const flat of flats) expect((email as CaughtEmail).parsed.text).toContain(String(flat['url']));
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 1_000));
    expect(smtp.received.filter((received) => received.to === 'bruno@example.org')).toHaveLength(1);
  }, 90_000);
});
