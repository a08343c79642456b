import { gatewayConfigSchema, notifierConfigSchema, serviceConfigSchema } from './common-config';
import { ConfigError, loadConfig } from './load-config';

describe('loadConfig', () => {
  it('applies defaults for the embedded runtime', () => {
    const config = loadConfig('geo', serviceConfigSchema, {});
    expect(config).toMatchObject({ NATS_URL: 'nats://127.0.0.1:4222', EVENT_STORE: 'jetstream', DOCUMENT_STORE: 'embedded', HEALTH_PORT: 0 });
  });

  it('names the bad variable in one message', () => {
    expect(() => loadConfig('geo', serviceConfigSchema, { NATS_URL: 'http://nope' })).toThrow(
      /Invalid configuration for geo: NATS_URL: must be one or more nats:\/\/ URLs/,
    );
  });

  it('takes NATS credentials in pairs, naming the missing half, and refuses a short password', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig('gateway', gatewayConfigSchema, env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems.map((p) => `${p.variable}: ${p.message}`);
      }
    };
    expect(problems({ NATS_USER: 'gateway' })).toEqual(['NATS_PASSWORD: NATS_USER and NATS_PASSWORD go together']);
    expect(problems({ NATS_USER: 'gateway', NATS_PASSWORD: 'short' })).toEqual(['NATS_PASSWORD: must be at least 16 characters']);
    expect(problems({ NATS_TLS_KEY_FILE: '/etc/nats/key.pem' })).toEqual(['NATS_TLS_CERT_FILE: NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together']);
    expect(problems({ NATS_USER: 'Not A User', NATS_PASSWORD: 'long-enough-password-1' })[0]).toMatch(/^NATS_USER: must be a NATS user name/);
    expect(problems({ NATS_USER: 'gateway', NATS_PASSWORD: 'long-enough-password-1', NATS_TLS_CA_FILE: '/etc/nats/ca.pem' })).toEqual([]);
    expect(() => loadConfig('geo', serviceConfigSchema, { NATS_PASSWORD: 'long-enough-password-1' })).toThrow(/NATS_USER: NATS_USER and NATS_PASSWORD go together/);
  });

  it('requires the URL of the production store that was chosen', () => {
    try {
      loadConfig('listings', serviceConfigSchema, { EVENT_STORE: 'eventstoredb', DOCUMENT_STORE: 'mongo' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.map((p) => p.variable).sort()).toEqual(['ESDB_URL', 'MONGO_URL']);
    }
  });

  it('takes an optional LOG_FORMAT of json or pretty in every app', () => {
    expect(loadConfig('geo', serviceConfigSchema, {}).LOG_FORMAT).toBeUndefined();
    expect(loadConfig('geo', serviceConfigSchema, { LOG_FORMAT: 'pretty' }).LOG_FORMAT).toBe('pretty');
    expect(loadConfig('gateway', gatewayConfigSchema, { LOG_FORMAT: 'json' }).LOG_FORMAT).toBe('json');
    expect(() => loadConfig('gateway', gatewayConfigSchema, { LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
  });

  it('rejects unknown store kinds and bad ports', () => {
    expect(() => loadConfig('listings', serviceConfigSchema, { EVENT_STORE: 'postgres' })).toThrow(/EVENT_STORE/);
    expect(() => loadConfig('gateway', gatewayConfigSchema, { PORT: '70000' })).toThrow(/PORT/);
    expect(() => loadConfig('gateway', gatewayConfigSchema, { ADMIN_API_KEY: 'short' })).toThrow(/ADMIN_API_KEY/);
  });
});

describe('SECRETS_KEY (notifier)', () => {
  const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');
  const notifier = (SECRETS_KEY?: string) => loadConfig('notifier', notifierConfigSchema, SECRETS_KEY === undefined ? {} : { SECRETS_KEY });
  /** The one message a bad value stops the notifier with. */
  const refusal = (SECRETS_KEY?: string) => {
    try {
      notifier(SECRETS_KEY);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).message;
    }
    throw new Error('expected a ConfigError');
  };

  it('reads one or more <keyId>:<base64 32-byte key> entries, the first being the one that seals', () => {
    expect(notifier(`k1:${key(1)}`).SECRETS_KEY).toEqual([{ id: 'k1', key: Buffer.alloc(32, 1) }]);
    expect(notifier(` 2026-11_b:${key(2)} , k1:${key(1)}`).SECRETS_KEY).toEqual([
      { id: '2026-11_b', key: Buffer.alloc(32, 2) },
      { id: 'k1', key: Buffer.alloc(32, 1) },
    ]);
  });

  it('is required: a notifier without it does not start', () => {
    expect(refusal()).toMatch(/^Invalid configuration for notifier: SECRETS_KEY: is required: <keyId>:<base64 of 32 random bytes> entries/);
  });

  it.each([
    ['an empty value', '', 'entry 1 is not <keyId>:<base64 key>'],
    ['a key without its id', key(1), 'entry 1 is not <keyId>:<base64 key>'],
    ['an empty entry', `k1:${key(1)},`, 'entry 2 is not <keyId>:<base64 key>'],
    ['a key id with a dot', `k.1:${key(1)}`, 'the key id of entry 1 must be 1 to 32 letters, digits, "_" or "-"'],
    ['an empty key id', `:${key(1)}`, 'the key id of entry 1 must be'],
    ['a key id given twice', `k1:${key(1)},k1:${key(2)}`, 'key id "k1" is given twice'],
    ['a 16-byte key', `k1:${Buffer.alloc(16, 1).toString('base64')}`, 'key "k1" must be the base64 of exactly 32 bytes'],
    ['a 33-byte key', `k1:${Buffer.alloc(33, 1).toString('base64')}`, 'key "k1" must be the base64 of exactly 32 bytes'],
    ['a key that is not base64', `k1:${'!'.repeat(43)}=`, 'key "k1" must be the base64 of exactly 32 bytes'],
    ['a passphrase', 'k1:correct horse battery staple', 'key "k1" must be the base64 of exactly 32 bytes'],
  ])('refuses %s, naming SECRETS_KEY in one message that does not quote the key', (_case, value, problem) => {
    const message = refusal(value);
    expect(message).toContain(`Invalid configuration for notifier: SECRETS_KEY: ${problem}`);
    for (const material of [key(1), key(2), 'correct horse']) expect(message).not.toContain(material);
  });

  it('is read by the notifier alone', () => {
    expect(Object.keys(loadConfig('geo', serviceConfigSchema, { SECRETS_KEY: `k1:${key(1)}` }))).not.toContain('SECRETS_KEY');
    expect(Object.keys(loadConfig('gateway', gatewayConfigSchema, { SECRETS_KEY: `k1:${key(1)}` }))).not.toContain('SECRETS_KEY');
  });
});
