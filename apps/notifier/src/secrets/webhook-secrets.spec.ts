import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { EmbeddedDocumentStore, type DocumentStore } from '@immo/document-store';
import { generateWebhookSecret, webhookHeaders } from '../delivery/webhook-signer';
import { SecretBox } from './secret-box';
import { WEBHOOK_SECRETS_COLLECTION, WebhookSecrets, type WebhookSecretDoc } from './webhook-secrets';

const ACCOUNT = '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';
const OTHER_ACCOUNT = '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d7';
const OVERLAP_MS = 24 * 60 * 60 * 1000;
const SECRET_FORMAT = /^whsec_[A-Za-z0-9+/]{43}=$/;
const SEALED_UNDER_K1 = /^v1\.k1\./;
const K1 = { id: 'k1', key: randomBytes(32) };
const K2 = { id: 'k2', key: randomBytes(32) };
const underK1 = new SecretBox([K1]);
/** SECRETS_KEY during a key rotation: the new key first, the old one still there to open with. */
const rotatingToK2 = new SecretBox([K2, K1]);

/** The secrets whose key (the base64 after `whsec_`, or its bytes in base64url or hex) shows in the documents. */
function plainSecretsIn(docs: readonly WebhookSecretDoc[], secrets: readonly string[]): string[] {
  const text = JSON.stringify(docs);
  return secrets.filter((secret) => {
    const encoded = secret.slice('whsec_'.length);
    const bytes = Buffer.from(encoded, 'base64');
    return [encoded, bytes.toString('base64url'), bytes.toString('hex')].some((form) => text.includes(form));
  });
}

/** Whether a delivery signed now with `signing` is accepted by a receiver holding `secret`. */
function receiverAccepts(secret: string, signing: readonly string[]): boolean {
  const body = JSON.stringify({ hello: 'receiver' });
  const headers = webhookHeaders('msg_2Kd1wO0m', Math.floor(Date.now() / 1000), body, signing);
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}

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
    it('when its secret is first asked for, then one in the Standard Webhooks format is made and stored sealed', async () => {
      const secrets = new WebhookSecrets(store, underK1, OVERLAP_MS, clock);

      const secret = await secrets.current(ACCOUNT);

      expect(secret).toMatch(SECRET_FORMAT);
      const stored = await storedSecrets();
      expect(stored).toEqual([
        { _id: ACCOUNT, revision: 1, current: expect.stringMatching(SEALED_UNDER_K1), createdAt: '2026-03-05T08:00:00.000Z', previous: null, previousUntilMs: null, keyId: 'k1' },
      ]);
      expect(plainSecretsIn(stored, [secret])).toEqual([]);
      expect(underK1.open(stored[0]!.current, ACCOUNT)).toBe(secret);
    });

    it('when asked again, by this instance or by a new one on the same store, then the same secret is answered', async () => {
      const secret = await new WebhookSecrets(store, underK1, OVERLAP_MS, clock).current(ACCOUNT);

      const secrets = new WebhookSecrets(store, underK1, OVERLAP_MS, clock);
      expect(await secrets.current(ACCOUNT)).toBe(secret);
      nowMs += 60 * 60 * 1000;
      expect(await secrets.current(ACCOUNT)).toBe(secret);
      expect(await secrets.signing(ACCOUNT)).toEqual([secret]);
      expect(await storedSecrets()).toHaveLength(1);
    });

    it('when deliveries are signed for it first, then the secret is made then and signs alone', async () => {
      const secrets = new WebhookSecrets(store, underK1, OVERLAP_MS, clock);

      const signing = await secrets.signing(ACCOUNT);

      expect(signing).toEqual([expect.stringMatching(SECRET_FORMAT)]);
      expect(await secrets.current(ACCOUNT)).toBe(signing[0]);
    });

    it('when many first uses of the account run at once, then one secret is made and all of them get it', async () => {
      const secrets = new WebhookSecrets(store, underK1, OVERLAP_MS, clock);

      const answers = await Promise.all([
        ...Array.from({ length: 10 }, () => secrets.current(ACCOUNT)),
        ...Array.from({ length: 10 }, async () => (await secrets.signing(ACCOUNT))[0]),
      ]);

      expect(new Set(answers).size).toBe(1);
      const stored = await storedSecrets();
      expect(stored).toEqual([expect.objectContaining({ _id: ACCOUNT, revision: 1 })]);
      expect(underK1.open(stored[0]!.current, ACCOUNT)).toBe(answers[0]);
    });

    it('when two replicas use the account for the first time at once, then both end up with the one stored secret', async () => {
      const [first, second] = [new WebhookSecrets(store, underK1, OVERLAP_MS, clock), new WebhookSecrets(store, underK1, OVERLAP_MS, clock)];

      const [a, b] = await Promise.all([first.current(ACCOUNT), second.current(ACCOUNT)]);

      const stored = await storedSecrets();
      expect(stored).toHaveLength(1);
      const current = underK1.open(stored[0]!.current, ACCOUNT);
      expect([a, b]).toEqual([current, current]);
    });

    it('when rotated, then a secret is made with nothing to overlap', async () => {
      const secrets = new WebhookSecrets(store, underK1, OVERLAP_MS, clock);

      const secret = await secrets.rotate(ACCOUNT);

      expect(secret).toMatch(SECRET_FORMAT);
      expect(await secrets.signing(ACCOUNT)).toEqual([secret]);
    });
  });

  describe('given an account with a secret', () => {
    let secrets: WebhookSecrets;
    let old: string;

    beforeEach(async () => {
      secrets = new WebhookSecrets(store, underK1, OVERLAP_MS, clock);
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

    it('when rotated, then the rotation is stored, both secrets sealed, for the other replicas and restarts', async () => {
      const fresh = await secrets.rotate(ACCOUNT);

      const restarted = new WebhookSecrets(store, underK1, OVERLAP_MS, clock);
      expect(await restarted.signing(ACCOUNT)).toEqual([fresh, old]);
      const stored = await storedSecrets();
      expect(stored).toEqual([expect.objectContaining({ revision: 2, previousUntilMs: nowMs + OVERLAP_MS, keyId: 'k1' })]);
      expect([underK1.open(stored[0]!.current, ACCOUNT), underK1.open(stored[0]!.previous!, ACCOUNT)]).toEqual([fresh, old]);
      expect(plainSecretsIn(stored, [fresh, old])).toEqual([]);
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
      const stored = await storedSecrets();
      expect(stored).toEqual([expect.objectContaining({ revision: 3 })]);
      expect([underK1.open(stored[0]!.current, ACCOUNT), underK1.open(stored[0]!.previous!, ACCOUNT)]).toEqual([b, a]);
    });

    it('when two replicas rotate it at once, then each answers a secret that is stored and signs', async () => {
      const elsewhere = new WebhookSecrets(store, underK1, OVERLAP_MS, clock);

      const answered = await Promise.all([secrets.rotate(ACCOUNT), elsewhere.rotate(ACCOUNT)]);

      // Whatever a caller was told must be a secret receivers can verify with, on every replica.
      const stored = (await storedSecrets())[0] as WebhookSecretDoc;
      const signing = await new WebhookSecrets(store, underK1, OVERLAP_MS, clock).signing(ACCOUNT);
      expect(signing).toEqual([underK1.open(stored.current, ACCOUNT), expect.any(String)]);
      for (const secret of answered) expect(signing).toContain(secret);
      expect(await secrets.signing(ACCOUNT)).toEqual(signing);
      expect(await elsewhere.signing(ACCOUNT)).toEqual(signing);
    });

    it('when another replica rotates it, then this one signs with the new secret once its cached copy is stale', async () => {
      const elsewhere = new WebhookSecrets(store, underK1, OVERLAP_MS, clock);
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
  describe('given a record stored plain by a version from before secrets were sealed', () => {
    const legacyCurrent = generateWebhookSecret();
    const legacyPrevious = generateWebhookSecret();
    let legacyUntilMs: number;

    beforeEach(async () => {
      legacyUntilMs = nowMs + 3_600_000;
      await store.collection<WebhookSecretDoc>(WEBHOOK_SECRETS_COLLECTION).upsert({
        _id: ACCOUNT,
        revision: 2,
        current: legacyCurrent,
        createdAt: '2026-03-01T10:00:00.000Z',
        previous: legacyPrevious,
        previousUntilMs: legacyUntilMs,
      });
    });

    it('when read, then its secrets are answered and sign as they are', async () => {
      const secrets = new WebhookSecrets(store, underK1, OVERLAP_MS, clock);

      expect(await secrets.current(ACCOUNT)).toBe(legacyCurrent);
      expect(await secrets.signing(ACCOUNT)).toEqual([legacyCurrent, legacyPrevious]);
    });

    it('when rotated, then the new record is sealed, the plain secret it replaces included', async () => {
      const secrets = new WebhookSecrets(store, underK1, OVERLAP_MS, clock);

      const fresh = await secrets.rotate(ACCOUNT);

      const stored = await storedSecrets();
      expect(stored).toEqual([expect.objectContaining({ revision: 3, keyId: 'k1', current: expect.stringMatching(SEALED_UNDER_K1), previous: expect.stringMatching(SEALED_UNDER_K1) })]);
      expect(plainSecretsIn(stored, [fresh, legacyCurrent, legacyPrevious])).toEqual([]);
      expect(await new WebhookSecrets(store, underK1, OVERLAP_MS, clock).signing(ACCOUNT)).toEqual([fresh, legacyCurrent]);
    });

    it('when rekeyed, then it is sealed with its secrets, dates and revision order kept', async () => {
      const secrets = new WebhookSecrets(store, underK1, OVERLAP_MS, clock);

      expect(await secrets.rekey()).toEqual({ keyId: 'k1', reencrypted: 1, unreadable: [] });

      const stored = await storedSecrets();
      expect(stored).toEqual([
        { _id: ACCOUNT, revision: 3, current: expect.stringMatching(SEALED_UNDER_K1), createdAt: '2026-03-01T10:00:00.000Z', previous: expect.stringMatching(SEALED_UNDER_K1), previousUntilMs: legacyUntilMs, keyId: 'k1' },
      ]);
      expect(plainSecretsIn(stored, [legacyCurrent, legacyPrevious])).toEqual([]);
      expect(await new WebhookSecrets(store, underK1, OVERLAP_MS, clock).signing(ACCOUNT)).toEqual([legacyCurrent, legacyPrevious]);
    });
  });

  describe('given secrets sealed under k1, when SECRETS_KEY puts k2 first and they are rekeyed', () => {
    let before: Map<string, string>;

    beforeEach(async () => {
      const secrets = new WebhookSecrets(store, underK1, OVERLAP_MS, clock);
      await secrets.current(ACCOUNT);
      await secrets.rotate(ACCOUNT);
      await secrets.current(OTHER_ACCOUNT);
      before = new Map([
        [ACCOUNT, await secrets.current(ACCOUNT)],
        [OTHER_ACCOUNT, await secrets.current(OTHER_ACCOUNT)],
      ]);
    });

    it('then every record is sealed under k2 alone, and the secrets and their signatures are unchanged', async () => {
      const outcome = await new WebhookSecrets(store, rotatingToK2, OVERLAP_MS, clock).rekey();

      expect(outcome).toEqual({ keyId: 'k2', reencrypted: 2, unreadable: [] });
      const stored = await storedSecrets();
      expect(stored.map((doc) => [doc._id, doc.keyId, doc.current.split('.')[1], doc.previous?.split('.')[1] ?? null]).sort()).toEqual([
        [ACCOUNT, 'k2', 'k2', 'k2'],
        [OTHER_ACCOUNT, 'k2', 'k2', null],
      ]);
      // The old key can go: a notifier holding k2 alone reads every secret as it was, and
      // receivers holding the secrets they had accept what it signs.
      const afterRotation = new WebhookSecrets(store, new SecretBox([K2]), OVERLAP_MS, clock);
      for (const [accountId, secret] of before) {
        expect(await afterRotation.current(accountId)).toBe(secret);
        expect(receiverAccepts(secret, await afterRotation.signing(accountId))).toBe(true);
      }
      expect(receiverAccepts(generateWebhookSecret(), await afterRotation.signing(ACCOUNT))).toBe(false);
    });

    it('then a second rekey finds nothing left to re-encrypt and writes nothing', async () => {
      const secrets = new WebhookSecrets(store, rotatingToK2, OVERLAP_MS, clock);
      await secrets.rekey();
      const revisions = (await storedSecrets()).map((doc) => doc.revision);

      expect(await secrets.rekey()).toEqual({ keyId: 'k2', reencrypted: 0, unreadable: [] });
      expect((await storedSecrets()).map((doc) => doc.revision)).toEqual(revisions);
    });

    it('then a record under a key SECRETS_KEY no longer holds is reported, left as it is, and the others are re-encrypted', async () => {
      const lost = new SecretBox([{ id: 'lost', key: randomBytes(32) }]);
      const stranded = '9c4d6e8f-0a1b-4c2d-8e3f-405162738495';
      await new WebhookSecrets(store, lost, OVERLAP_MS, clock).current(stranded);
      const strandedDoc = await store.collection<WebhookSecretDoc>(WEBHOOK_SECRETS_COLLECTION).findById(stranded);

      const outcome = await new WebhookSecrets(store, rotatingToK2, OVERLAP_MS, clock).rekey();

      expect(outcome).toEqual({ keyId: 'k2', reencrypted: 2, unreadable: [stranded] });
      expect(await store.collection<WebhookSecretDoc>(WEBHOOK_SECRETS_COLLECTION).findById(stranded)).toEqual(strandedDoc);
    });

    it('then a rotation another replica (still on k1 alone) makes meanwhile is kept, and sealed under k2 too', async () => {
      const stillOnK1 = new WebhookSecrets(store, underK1, OVERLAP_MS, clock);
      let rotated: string | null = null;
      // The rekey's write of ACCOUNT finds that the other replica rotated its secret since it was read.
      const racing: DocumentStore = {
        collection: (spec) => store.collection(spec),
        commit: async (writes, options) => {
          if (rotated === null && writes.some((write) => 'upsert' in write && write.upsert._id === ACCOUNT)) rotated = await stillOnK1.rotate(ACCOUNT);
          return store.commit(writes, options);
        },
        flush: () => store.flush(),
        isReady: () => store.isReady(),
        close: () => store.close(),
      };

      const outcome = await new WebhookSecrets(racing, rotatingToK2, OVERLAP_MS, clock).rekey();

      expect(outcome).toEqual({ keyId: 'k2', reencrypted: 2, unreadable: [] });
      expect((await storedSecrets()).every((doc) => doc.keyId === 'k2')).toBe(true);
      const reader = new WebhookSecrets(store, new SecretBox([K2]), OVERLAP_MS, clock);
      expect(await reader.signing(ACCOUNT)).toEqual([rotated, before.get(ACCOUNT)]);
    });

    it('then a rotation that loses its write to the rekey of another replica is made again over it', async () => {
      let rekeyed = false;
      // The rotation's first write finds that another replica re-encrypted the record since it was read.
      const racing: DocumentStore = {
        collection: (spec) => store.collection(spec),
        commit: async (writes, options) => {
          if (!rekeyed) rekeyed = (await new WebhookSecrets(store, rotatingToK2, OVERLAP_MS, clock).rekey()).reencrypted > 0;
          return store.commit(writes, options);
        },
        flush: () => store.flush(),
        isReady: () => store.isReady(),
        close: () => store.close(),
      };

      const rotated = await new WebhookSecrets(racing, rotatingToK2, OVERLAP_MS, clock).rotate(ACCOUNT);

      expect(rekeyed).toBe(true);
      expect(rotated).not.toBe(before.get(ACCOUNT));
      const reader = new WebhookSecrets(store, new SecretBox([K2]), OVERLAP_MS, clock);
      expect(await reader.signing(ACCOUNT)).toEqual([rotated, before.get(ACCOUNT)]);
      expect((await storedSecrets()).find((doc) => doc._id === ACCOUNT)).toEqual(expect.objectContaining({ revision: 4, keyId: 'k2' }));
    });
  });
});
