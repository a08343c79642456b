import { PrivateTargetsAllowed, resolvedTargetViolation, webhookUrlViolation, type Resolve } from './webhook-target';

const PRIVATE_ADDRESS = 'must not target a private, loopback or link-local address';
const PRIVATE_HOST = 'must not target a private host';
const nothingAllowed = new PrivateTargetsAllowed(undefined);

describe('webhookUrlViolation', () => {
  it.each(['https://93.184.216.34/hook', 'https://[2606:2800:220:1::]/hook', 'https://hooks.example.com:8443/path?x=1'])('accepts the public https target %s', (url) => {
    expect(webhookUrlViolation(url)).toBeNull();
  });

  it.each([
    ['unspecified', 'https://0.0.0.0/'],
    ['private 10/8', 'https://10.1.2.3/h'],
    ['private 172.16/12', 'https://172.20.0.1/h'],
    ['private 192.168/16', 'https://192.168.1.1/h'],
    ['loopback', 'https://127.0.0.1/h'],
    ['loopback written as one number', 'https://2130706433/h'],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest'],
    ['carrier-grade NAT', 'https://100.64.0.1/'],
    ['multicast', 'https://224.0.0.1/'],
    ['IPv6 unspecified', 'https://[::]/'],
    ['IPv6 loopback', 'https://[::1]/h'],
    ['IPv6 unique local', 'https://[fd00::1]/'],
    ['IPv6 unique local (AWS metadata)', 'https://[fd00:ec2::254]/'],
    ['IPv6 link-local', 'https://[fe80::1]/'],
    ['IPv6 multicast', 'https://[ff02::1]/'],
    ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]/'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/'],
  ])('refuses the %s address %s', (_kind, url) => {
    expect(webhookUrlViolation(url)).toBe(PRIVATE_ADDRESS);
  });

  it.each(['https://localhost./h', 'https://metadata.google.internal./', 'https://[::127.0.0.1]/', 'https://[64:ff9b::a00:1]/'])(
    'refuses %s (a final dot, an IPv4-compatible or NAT64 address)',
    (url) => {
      expect(webhookUrlViolation(url)).not.toBeNull();
    },
  );

  it('accepts an IPv4-mapped public address', () => {
    expect(webhookUrlViolation('https://[::ffff:8.8.8.8]/')).toBeNull();
  });

  it.each(['https://localhost/h', 'https://LOCALHOST/h', 'https://foo.localhost/h', 'https://metadata.google.internal/computeMetadata', 'https://printer.local/'])(
    'refuses the private name %s',
    (url) => {
      expect(webhookUrlViolation(url)).toBe(PRIVATE_HOST);
    },
  );

  it.each(['not a url', '', '/relative/path', 'http://example.com/h', 'ftp://example.com/h'])('refuses %j as not an https URL', (text) => {
    expect(webhookUrlViolation(text)).toBe('must be an https:// URL');
  });

  it.each(['https://user:pw@example.com/h', 'https://user@example.com/h', 'https://:pw@example.com/h'])('refuses credentials in %s', (url) => {
    expect(webhookUrlViolation(url)).toBe('must not hold credentials');
  });

  it('refuses a URL longer than 2000 characters', () => {
    expect(webhookUrlViolation(`https://example.com/${'a'.repeat(2000)}`)).toBe('must be at most 2000 characters');
  });
});

describe('PrivateTargetsAllowed', () => {
  it('allows nothing without a setting', () => {
    expect(nothingAllowed.host('localhost')).toBe(false);
    expect(nothingAllowed.address('127.0.0.1')).toBe(false);
  });

  it('reads comma-separated host names, case-insensitively', () => {
    const allowed = new PrivateTargetsAllowed(' Hooks.Test , localhost ,');
    expect(allowed.host('hooks.test')).toBe(true);
    expect(allowed.host('HOOKS.TEST')).toBe(true);
    expect(allowed.host('localhost')).toBe(true);
    expect(allowed.host('other.test')).toBe(false);
  });

  it('reads CIDR ranges and single addresses', () => {
    const allowed = new PrivateTargetsAllowed('10.0.0.0/8,192.168.1.7,fd00::/8');
    expect(allowed.address('10.200.3.4')).toBe(true);
    expect(allowed.address('11.0.0.1')).toBe(false);
    expect(allowed.address('192.168.1.7')).toBe(true);
    expect(allowed.address('192.168.1.8')).toBe(false);
    expect(allowed.address('fd00::1')).toBe(true);
    expect(allowed.address('fe80::1')).toBe(false);
    expect(allowed.address('not-an-address')).toBe(false);
  });

  it('does not treat an address range as a host name', () => {
    expect(new PrivateTargetsAllowed('127.0.0.1/32').host('127.0.0.1/32')).toBe(false);
  });

  it('lets webhookUrlViolation accept an allowed range and still refuse the rest', () => {
    const allowed = new PrivateTargetsAllowed('127.0.0.1/32');
    expect(webhookUrlViolation('https://127.0.0.1/h', allowed)).toBeNull();
    expect(webhookUrlViolation('https://127.0.0.2/h', allowed)).toBe(PRIVATE_ADDRESS);
    expect(webhookUrlViolation('https://10.0.0.1/h', allowed)).toBe(PRIVATE_ADDRESS);
  });

  it('lets webhookUrlViolation accept an allowed host name', () => {
    const allowed = new PrivateTargetsAllowed('localhost');
    expect(webhookUrlViolation('https://localhost:8443/h', allowed)).toBeNull();
    expect(webhookUrlViolation('https://foo.localhost/h', allowed)).toBe(PRIVATE_HOST);
  });

  it('does not let an allowed host skip the https and credentials checks', () => {
    const allowed = new PrivateTargetsAllowed('localhost');
    expect(webhookUrlViolation('http://localhost/h', allowed)).toBe('must be an https:// URL');
    expect(webhookUrlViolation('https://u:p@localhost/h', allowed)).toBe('must not hold credentials');
  });
});

describe('resolvedTargetViolation', () => {
  const resolvingTo = (...addresses: string[]) => jest.fn<Promise<string[]>, [string]>(async () => addresses);

  it('accepts a name that resolves only to public addresses', async () => {
    const resolve = resolvingTo('93.184.216.34', '2606:2800:220:1::');
    await expect(resolvedTargetViolation('https://hooks.example.com/h', nothingAllowed, resolve)).resolves.toBeNull();
    expect(resolve).toHaveBeenCalledWith('hooks.example.com');
  });

  it('refuses a name that resolves to a private address, naming the address', async () => {
    await expect(resolvedTargetViolation('https://hooks.example.com/h', nothingAllowed, resolvingTo('93.184.216.34', '10.0.0.5'))).resolves.toBe(
      'host hooks.example.com resolves to a private address (10.0.0.5)',
    );
  });

  it('refuses a name that resolves to an IPv4-mapped private address', async () => {
    await expect(resolvedTargetViolation('https://hooks.example.com/h', nothingAllowed, resolvingTo('::ffff:169.254.169.254'))).resolves.toBe(
      'host hooks.example.com resolves to a private address (::ffff:169.254.169.254)',
    );
  });

  it('accepts a private resolved address inside an allowed range', async () => {
    const allowed = new PrivateTargetsAllowed('10.0.0.0/8');
    await expect(resolvedTargetViolation('https://hooks.example.com/h', allowed, resolvingTo('10.0.0.5'))).resolves.toBeNull();
    await expect(resolvedTargetViolation('https://hooks.example.com/h', allowed, resolvingTo('10.0.0.5', '192.168.0.1'))).resolves.toBe(
      'host hooks.example.com resolves to a private address (192.168.0.1)',
    );
  });

  it('refuses a name whose resolution fails', async () => {
    const resolve: Resolve = async () => {
      throw new Error('ENOTFOUND');
    };
    await expect(resolvedTargetViolation('https://nowhere.example/h', nothingAllowed, resolve)).resolves.toBe('host nowhere.example does not resolve');
  });

  it('refuses a name that resolves to no address', async () => {
    await expect(resolvedTargetViolation('https://nowhere.example/h', nothingAllowed, resolvingTo())).resolves.toBe('host nowhere.example does not resolve');
  });

  it('does not resolve an allowed host', async () => {
    const resolve = resolvingTo('10.0.0.5');
    await expect(resolvedTargetViolation('https://hooks.test/h', new PrivateTargetsAllowed('hooks.test'), resolve)).resolves.toBeNull();
    expect(resolve).not.toHaveBeenCalled();
  });

  it.each(['https://93.184.216.34/h', 'https://[2606:2800:220:1::]/h'])('does not resolve the IP literal in %s', async (url) => {
    const resolve = resolvingTo('10.0.0.5');
    await expect(resolvedTargetViolation(url, nothingAllowed, resolve)).resolves.toBeNull();
    expect(resolve).not.toHaveBeenCalled();
  });
});
