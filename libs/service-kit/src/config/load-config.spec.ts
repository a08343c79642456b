import { gatewayConfigSchema, serviceConfigSchema } from './common-config';
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
