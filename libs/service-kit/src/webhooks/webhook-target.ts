/**
 * Where a search may send webhooks. Subscribers name the URLs, so a URL must not let them reach
 * what only the service can reach: private networks, loopback, link-local (cloud metadata at
 * 169.254.169.254), carrier-grade NAT, multicast, unique-local IPv6. The host is checked as
 * written and, for names, as it resolves now; since a name can be pointed elsewhere later,
 * deliveries must check the address they connect to as well. `WEBHOOK_PRIVATE_TARGETS_ALLOWED` opts named hosts
 * or CIDR ranges in (tests, deployments whose subscribers are on a private network).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const BLOCKED_V4 = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT (and Alibaba's metadata address)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local: cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const;
const BLOCKED_V6 = [
  ['::', 128],
  ['::1', 128],
  ['::', 96], // IPv4-compatible (::127.0.0.1)
  ['64:ff9b::', 96], // NAT64: an IPv4 address behind a translator
  ['fc00::', 7], // unique local (AWS metadata fd00:ec2::254 among them)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const;
/** Names that are private whatever DNS says. */
const BLOCKED_NAMES = [/^localhost$/i, /\.localhost$/i, /\.internal$/i, /\.local$/i];

const blocked = new BlockList();
for (const [address, prefix] of BLOCKED_V4) blocked.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of BLOCKED_V6) blocked.addSubnet(address, prefix, 'ipv6');

const RESOLVE_TIMEOUT_MS = 3000;

/** The opt-in list: host names and CIDR ranges (`hooks.test`, `127.0.0.1/32`, `10.0.0.0/8`). */
export class PrivateTargetsAllowed {
  private readonly hosts = new Set<string>();
  private readonly ranges = new BlockList();

  constructor(setting: string | undefined) {
    for (const entry of (setting ?? '').split(',').map((item) => item.trim()).filter(Boolean)) {
      const [address, prefix] = entry.split('/');
      const family = isIP(address ?? '');
      if (family === 0) this.hosts.add(entry.toLowerCase());
      else this.ranges.addSubnet(address as string, prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
    }
  }

  host(name: string): boolean {
    return this.hosts.has(name.toLowerCase());
  }

  address(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.ranges.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}

function hostOf(url: URL): string {
  // `new URL` keeps IPv6 literals in brackets, and a fully qualified name's final dot
  // (`localhost.` is localhost).
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is the IPv4 address it maps. */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1] as string, 'ipv4');
  const family = isIP(address);
  return family !== 0 && blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** What is wrong with a webhook URL as written, or null: https, no credentials, no private host. */
export function webhookUrlViolation(text: string, allowed = new PrivateTargetsAllowed(undefined)): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an https:// URL';
  }
  if (url.protocol !== 'https:') return 'must be an https:// URL';
  if (text.length > 2000) return 'must be at most 2000 characters';
  if (url.username || url.password) return 'must not hold credentials';
  const host = hostOf(url);
  if (allowed.host(host)) return null;
  if (isIP(host) !== 0) return isBlockedAddress(host) && !allowed.address(host) ? 'must not target a private, loopback or link-local address' : null;
  if (BLOCKED_NAMES.some((pattern) => pattern.test(host))) return 'must not target a private host';
  return null;
}

export type Resolve = (host: string) => Promise<string[]>;

const resolveWithDns: Resolve = async (host) => {
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timed out')), RESOLVE_TIMEOUT_MS).unref());
  const addresses = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
  return addresses.map((entry) => entry.address);
};

/**
 * What is wrong with where a URL's host resolves now, or null. A name that does not resolve is
 * refused: nothing could be delivered to it, and accepting it would let it be pointed anywhere
 * later without a check at creation.
 */
export async function resolvedTargetViolation(text: string, allowed: PrivateTargetsAllowed, resolve: Resolve = resolveWithDns): Promise<string | null> {
  const host = hostOf(new URL(text));
  if (allowed.host(host) || isIP(host) !== 0) return null;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    return `host ${host} does not resolve`;
  }
  if (addresses.length === 0) return `host ${host} does not resolve`;
  const privateAddress = addresses.find((address) => isBlockedAddress(address) && !allowed.address(address));
  return privateAddress ? `host ${host} resolves to a private address (${privateAddress})` : null;
}
