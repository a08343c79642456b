import { EmbeddedDocumentStore } from '@immo/document-store';
import { WEBHOOK_SECRETS_COLLECTION, WebhookSecrets, type WebhookSecretDoc } from './webhook-secrets';

const ACCOUNT = '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';
const OTHER_ACCOUNT = '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d7';
const OVERLAP_MS = 24 * 60 * 60 * 1000;
const SECRET_FORMAT = /^whsec_[A-Za-z0-9+/]{43}=$/;

describe('WebhookSecrets', () => {
  let store: EmbeddedDocumentStore;
  let nowMs: number;
  const clock = () => nowMs;
  const storedSecrets = () => store.collection<WebhookSecretDoc>(WEBHOOK_SECRETS_COLLECTION).find({});

  beforeEach(() => {
    store = new EmbeddedDocumentStore();
    nowMs = Date.parse('2026-03-05T08:00:00.000Z');
  });

  afterEach(() => store.close());

  describe('given an account without a secret', () => {
    it('when its secret is first asked for, then one in the Standard Webhooks format is made and stored', async () => {
      const secrets = new WebhookSecrets(store, OVERLAP_MS, clock);

      const secret = await secrets.current(ACCOUNT);

      expect(secret).toMatch(SECRET_FORMAT);
      expect(await storedSecrets()).toEqual([
        { _id: ACCOUNT, revision: 1, current: secret, createdAt: '2026-03-05T08:00:00.000Z', previous: null, previousUntilMs: null },
      ]);
    });

    it('when asked again, by this instance or by a new one on the same store, then the same secret is answered', async () => {
      const secret = await new WebhookSecrets(store, OVERLAP_MS, clock).current(ACCOUNT);

      const secrets = new WebhookSecrets(store, OVERLAP_MS, clock);
      expect(await secrets.current(ACCOUNT)).toBe(secret);
      nowMs += 60 * 60 * 1000;
      expect(await secrets.current(ACCOUNT)).toBe(secret);
      expect(await secrets.signing(ACCOUNT)).toEqual([secret]);
      expect(await storedSecrets()).toHaveLength(1);
    });

    it('when deliveries are signed for it first, then the secret is made then and signs alone', async () => {
      const secrets = new WebhookSecrets(store, OVERLAP_MS, clock);

      const signing = await secrets.signing(ACCOUNT);

      expect(signing).toEqual([expect.stringMatching(SECRET_FORMAT)]);
      expect(await secrets.current(ACCOUNT)).toBe(signing[0]);
    });

    it('when many first uses of the account run at once, then one secret is made and all of them get it', async () => {
      const secrets = new WebhookSecrets(store, OVERLAP_MS, clock);

      const answers = await Promise.all([
        ...Array.from({ length: 10 }, () => secrets.current(ACCOUNT)),
        ...Array.from({ length: 10 }, async () => (await secrets.signing(ACCOUNT))[0]),
      ]);

      expect(new Set(answers).size).toBe(1);
      expect(await storedSecrets()).toEqual([expect.objectContaining({ _id: ACCOUNT, revision: 1, current: answers[0] })]);
    });

    it('when two replicas use the account for the first time at once, then both end up with the one stored secret', async () => {
      const [first, second] = [new WebhookSecrets(store, OVERLAP_MS, clock), new WebhookSecrets(store, OVERLAP_MS, clock)];

      const [a, b] = await Promise.all([first.current(ACCOUNT), second.current(ACCOUNT)]);

      const stored = await storedSecrets();
      expect(stored).toHaveLength(1);
      expect([a, b]).toEqual([stored[0]?.current, stored[0]?.current]);
    });

    it('when rotated, then a secret is made with nothing to overlap', async () => {
      const secrets = new WebhookSecrets(store, OVERLAP_MS, clock);

      const secret = await secrets.rotate(ACCOUNT);

      expect(secret).toMatch(SECRET_FORMAT);
      expect(await secrets.signing(ACCOUNT)).toEqual([secret]);
    });
  });

  describe('given an account with a secret', () => {
    let secrets: WebhookSecrets;
    let old: string;

    beforeEach(async () => {
      secrets = new WebhookSecrets(store, OVERLAP_MS, clock);
      old = await secrets.current(ACCOUNT);
      nowMs += 1000;
    });

    it('when rotated, then a new secret becomes current and both sign until the overlap passes', async () => {
      const rotatedAt = nowMs;
      const fresh = await secrets.rotate(ACCOUNT);

      expect(fresh).toMatch(SECRET_FORMAT);
      expect(fresh).not.toBe(old);
      expect(await secrets.current(ACCOUNT)).toBe(fresh);
      expect(await secrets.signing(ACCOUNT)).toEqual([fresh, old]);

      nowMs = rotatedAt + OVERLAP_MS - 1;
      expect(await secrets.signing(ACCOUNT)).toEqual([fresh, old]);

      nowMs = rotatedAt + OVERLAP_MS;
      expect(await secrets.signing(ACCOUNT)).toEqual([fresh]);
      expect(await secrets.current(ACCOUNT)).toBe(fresh);
    });

    it('when rotated, then the rotation is stored for the other replicas and restarts', async () => {
      const fresh = await secrets.rotate(ACCOUNT);

      const restarted = new WebhookSecrets(store, OVERLAP_MS, clock);
      expect(await restarted.signing(ACCOUNT)).toEqual([fresh, old]);
      expect(await storedSecrets()).toEqual([expect.objectContaining({ revision: 2, current: fresh, previous: old, previousUntilMs: nowMs + OVERLAP_MS })]);
    });

    it('when rotated twice, then only the latest two secrets sign and the first no longer does', async () => {
      const second = await secrets.rotate(ACCOUNT);
      nowMs += 1000;
      const third = await secrets.rotate(ACCOUNT);

      expect(await secrets.signing(ACCOUNT)).toEqual([third, second]);
      expect(await secrets.signing(ACCOUNT)).not.toContain(old);
    });

    it('when rotated at once by two callers, then each rotation is applied on top of the other', async () => {
      const [a, b] = await Promise.all([secrets.rotate(ACCOUNT), secrets.rotate(ACCOUNT)]);

      expect(a).not.toBe(b);
      expect(await secrets.signing(ACCOUNT)).toEqual([b, a]);
      expect(await storedSecrets()).toEqual([expect.objectContaining({ revision: 3, current: b, previous: a })]);
    });

    it('when two replicas rotate it at once, then each answers a secret that is stored and signs', async () => {
      const elsewhere = new WebhookSecrets(store, OVERLAP_MS, clock);

      const answered = await Promise.all([secrets.rotate(ACCOUNT), elsewhere.rotate(ACCOUNT)]);

      // Whatever a caller was told must be a secret receivers can verify with, on every replica.
      const stored = (await storedSecrets())[0] as WebhookSecretDoc;
      const signing = await new WebhookSecrets(store, OVERLAP_MS, clock).signing(ACCOUNT);
      expect(signing).toEqual([stored.current, expect.any(String)]);
      for (const secret of answered) expect(signing).toContain(secret);
      expect(await secrets.signing(ACCOUNT)).toEqual(signing);
      expect(await elsewhere.signing(ACCOUNT)).toEqual(signing);
    });

    it('when another replica rotates it, then this one signs with the new secret once its cached copy is stale', async () => {
      const elsewhere = new WebhookSecrets(store, OVERLAP_MS, clock);
      const fresh = await elsewhere.rotate(ACCOUNT);

      // Within the cache period this replica still signs with the old secret alone, which
      // receivers holding either secret accept during the overlap.
      expect(await secrets.signing(ACCOUNT)).toEqual([old]);
      nowMs += 10_000;
      expect(await secrets.signing(ACCOUNT)).toEqual([fresh, old]);
    });

    it('when another account asks for its secret, then it gets its own', async () => {
      const other = await secrets.current(OTHER_ACCOUNT);

      expect(other).not.toBe(old);
      expect(await secrets.current(ACCOUNT)).toBe(old);
    });
  });
});
