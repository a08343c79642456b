import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CreatedAccount } from '@immo/contracts';
import { freePort } from '@immo/testing';
import { ROOT, startStackFixture, type StackFixture } from './stack-fixture';

const example = (() => {
  const raw = JSON.parse(readFileSync(join(ROOT, 'libs/contracts/src/listings/advert-snapshot.example.json'), 'utf8')) as Record<string, unknown>;
  delete raw['$comment'];
  return raw;
})();

/** What the local inbox's API lists of a message. */
interface InboxEmail {
  subject: string;
  to: { address: string }[];
  html?: string;
  text?: string;
}

describe('the local inbox of npm start (MailDev, when no SMTP_URL is given)', () => {
  let fixture: StackFixture;

  beforeAll(async () => {
    fixture = await startStackFixture({ MAIL_BATCH_WINDOW_MS: '500' }, undefined, { localInbox: { smtpPort: await freePort(), webPort: await freePort() } });
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
  });

  it('shows the alert e-mail of a search saved with a notificationRecipient and no endpoint, on its web page', async () => {
    const inbox = fixture.stack.inboxUrl as string;
    expect(inbox).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(inbox, { headers: { accept: 'text/html' } })).status).toBe(200);

    const admin = { 'X-API-KEY': fixture.stack.adminApiKey };
    const account = (await fixture.send('POST', '/admin/accounts', { name: 'Inbox' }, admin)).body as CreatedAccount;
    const created = await fixture.send(
      'POST',
      '/searches',
      { title: 'Appartements Lyon', transactionType: 0, propertyTypes: [0], includedCities: ['/cities/69123'], notificationEnabled: true, notificationRecipient: 'claire@example.org' },
      { 'X-API-KEY': account.apiKey },
    );
    expect(created.status).toBe(201);
    const reference = `INBOX-${Date.now()}`;
    const ingested = await fixture.send(
      'POST',
      '/admin/adverts',
      [
        {
          ...example,
          site: 'e2e-inbox',
          reference,
          url: `https://e2e-inbox.example/annonces/${reference}`,
          title: `Appartement ${reference}`,
          commune: { insee: '69123', zipcode: '69003', name: 'Lyon' },
          location: { lat: 45.7597, lon: 4.8553, accuracy: 1 },
          seenAt: new Date().toISOString(),
        },
      ],
      admin,
    );
    expect(ingested.status).toBe(200);

    const deadline = Date.now() + 20_000;
    let emails: InboxEmail[] = [];
    while (Date.now() < deadline) {
      emails = (await (await fetch(`${inbox}/api/email`)).json()) as InboxEmail[];
      if (emails.some((email) => email.to.some((to) => to.address === 'claire@example.org'))) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const email = emails.find((candidate) => candidate.to.some((to) => to.address === 'claire@example.org'));
    expect(email?.subject.replace(/[\u00a0\u202f]/g, ' ')).toBe('1 nouveau bien pour « Appartements Lyon »');
    expect(email?.html).toContain(reference);
  }, 60_000);
});
