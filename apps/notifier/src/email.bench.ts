/**
 * `npm run bench -- email-throughput`: alert e-mails accepted per second by a local SMTP server,
 * 1,000 recipients, while the SMTP server of 5 % of them (their domain routed to it) accepts
 * connections and never answers: its breaker opens and the others are not held up.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { connect } from 'nats';
import { ALERT_NOTIFICATIONS_SUBJECT, samplePropertyDocument, webhookPropertyDocument, type AlertNotification, type CreatedAccount, type MatchPayload, type SearchRecord } from '@immo/contracts';
import { withTemporaryStack, type RunningStack } from '@immo/stack';
import { httpRequest, startSilentSmtpServer, startSmtpCatcher, type Measurement, type Scenario } from '@immo/testing';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const RECIPIENTS = Number(process.env['EMAIL_BENCH_RECIPIENTS'] ?? 1_000);
const STUCK_SHARE = 0.05;

async function api(stack: RunningStack, method: string, path: string, apiKey: string, payload?: unknown): Promise<unknown> {
  const response = await httpRequest(method, `${stack.baseUrl}${path}`, { 'X-API-KEY': apiKey }, payload);
  const json = response.body.length === 0 ? null : (JSON.parse(response.body.toString('utf8')) as unknown);
  if (response.status >= 400) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

/** A Match as the matcher writes it: what the e-mail is rendered from. */
function matchPayload(searchId: string, propertyId: string, matchId: string): string {
  const document = { ...samplePropertyDocument(), uuid: propertyId };
  const now = new Date().toISOString();
  const payload: MatchPayload = {
    '@context': '/contexts/Match',
    '@id': `/matches/${matchId}`,
    '@type': 'Match',
    property: `/documents/properties/${propertyId}`,
    search: `/searches/${searchId}`,
    createdAt: now,
    updatedAt: now,
    propertyDocument: webhookPropertyDocument(document, false),
  };
  return JSON.stringify(payload);
}

const emailThroughput: Scenario = {
  name: 'email-throughput',
  description: `${RECIPIENTS} alert e-mails, one per recipient, to a local SMTP server; the SMTP server of ${STUCK_SHARE * 100} % of the recipients never answers (target ≥ 200 e-mails/s)`,
  run: async () => {
    const smtp = await startSmtpCatcher({ parse: false });
    const stuck = await startSilentSmtpServer();
    try {
      return await withTemporaryStack(
        ROOT,
        async (stack) => {
          const account = (await api(stack, 'POST', '/admin/accounts', stack.adminApiKey, { name: 'bench e-mails' })) as CreatedAccount;
          const recipients = Array.from({ length: RECIPIENTS }, (_, i) => (i % Math.round(1 / STUCK_SHARE) === 0 ? `user${i}@stuck.example` : `user${i}@example.org`));
          const searches: SearchRecord[] = [];
          for (let i = 0; i < recipients.length; i += 50) {
            const batch = recipients.slice(i, i + 50);
            searches.push(
              ...(await Promise.all(
                batch.map(
                  (recipient, j) =>
                    api(stack, 'POST', '/searches', account.apiKey, { title: `Recherche ${i + j}`, transactionType: 0, propertyTypes: [0], notificationEnabled: true, notificationRecipient: recipient }) as Promise<SearchRecord>,
                ),
              )),
            );
          }
          const notifications: AlertNotification[] = searches.map((search, i) => {
            const propertyId = randomUUID();
            const matchId = randomUUID();
            return {
              id: randomUUID(),
              searchId: search.id,
              accountId: account.id,
              kind: 'match',
              endpoint: null,
              propertyId,
              matchId,
              payload: matchPayload(search.id, propertyId, matchId),
              createdAt: new Date().toISOString(),
              email: { recipient: recipients[i] as string, searchTitle: search.title, unsubscribeToken: search.token },
            };
          });
          const healthy = recipients.filter((recipient) => !recipient.endsWith('@stuck.example')).length;
          const nats = await connect(stack.natsConnectOptions('searches'));
          const js = nats.jetstream();
          const started = Date.now();
          for (let i = 0; i < notifications.length; i += 500) {
            await Promise.all(notifications.slice(i, i + 500).map((n) => js.publish(ALERT_NOTIFICATIONS_SUBJECT, JSON.stringify(n), { msgID: n.id })));
          }
          const deadline = Date.now() + 180_000;
          while (smtp.received.length < healthy && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
          await nats.close();
          const wallMs = (smtp.received.at(-1)?.atMs ?? Date.now()) - started;
          return [
            {
              label: `${RECIPIENTS} recipients, ${STUCK_SHARE * 100} % behind a silent SMTP server`,
              samplesMs: [],
              wallMs,
              operations: smtp.received.length,
              notes: `${((smtp.received.length / wallMs) * 1000).toFixed(0)} e-mails/s (target ≥ 200); ${smtp.received.length}/${healthy} received in ${(wallMs / 1000).toFixed(1)} s`,
            } satisfies Measurement,
          ];
        },
        {
          SMTP_URL: smtp.url,
          SMTP_ROUTES: `stuck.example=${stuck.url}`,
          MAIL_BATCH_WINDOW_MS: '0',
          MAIL_MAX_PER_RECIPIENT_PER_HOUR: '100',
          MAIL_TIMEOUT_MS: '2000',
          MAX_SEARCHES_PER_ACCOUNT: String(RECIPIENTS + 100),
        },
      );
    } finally {
      await stuck.close();
      await smtp.close();
    }
  },
};

export const benchScenarios: Scenario[] = [emailThroughput];
