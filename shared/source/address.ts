import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ApiError } from '#shared/errors.ts';

/** Resolves a host name to every address it has; injectable so tests can fake DNS answers. */
export type HostLookup = (hostname: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

export const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, order: 'verbatim' });

const globalUnicastV6 = ipaddr.IPv6.parseCIDR('2000::/3');

function isPublicV4(address: ipaddr.IPv4): boolean {
  // ipaddr.js names every special-purpose block (loopback, private, CGNAT, link-local, multicast,
  // broadcast, unspecified, reserved, documentation, benchmarking…); only plain unicast is public.
  return address.range() === 'unicast';
}

function v4FromBits(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function isPublicV6(address: ipaddr.IPv6): boolean {
  const parts = address.parts;
  switch (address.range()) {
    case 'unicast':
      return address.match(globalUnicastV6);
    // IPv4 carried inside IPv6 is judged by the IPv4 address it reaches.
    case 'ipv4Mapped':
    case 'rfc6145':
      return isPublicV4(v4FromBits(parts[6]!, parts[7]!));
    case 'rfc6052':
      // 64:ff9b::/96 embeds the IPv4 in the last 32 bits; the local-use 64:ff9b:1::/48 is never public.
      return parts[2] === 0 && isPublicV4(v4FromBits(parts[6]!, parts[7]!));
    case '6to4':
      return isPublicV4(v4FromBits(parts[1]!, parts[2]!));
    case 'teredo':
      // Server in bits 32–63, client (inverted) in the last 32 bits: both must be public.
      return (
        isPublicV4(v4FromBits(parts[2]!, parts[3]!)) &&
        isPublicV4(v4FromBits(~parts[6]! & 0xffff, ~parts[7]! & 0xffff))
      );
    default:
      return false;
  }
}

/**
 * True only for an address a public source may live at. Anything that is not a valid address, or
 * falls in a loopback, private, link-local, unique-local, CGNAT, multicast, unspecified, reserved or
 * documentation block, directly or embedded in IPv6, is not public.
 */
export function isPublicAddress(ip: string): boolean {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  // Zone ids (fe80::1%eth0) only exist on link-local scopes; a public address never has one.
  if (text.includes('%') || !ipaddr.isValid(text)) return false;
  const address = ipaddr.parse(text);
  return address.kind() === 'ipv4' ? isPublicV4(address as ipaddr.IPv4) : isPublicV6(address as ipaddr.IPv6);
}

/** Parses an absolute http(s) URL without credentials, else 400 `source_invalid_url`. */
export function assertHttpUrl(raw: string, field = 'sourceUrl'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError('source_invalid_url', `${field} is not a valid absolute URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ApiError('source_invalid_url', `${field} must use http or https.`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new ApiError('source_invalid_url', `${field} must not carry a user name or password.`);
  }
  if (url.hostname === '') throw new ApiError('source_invalid_url', `${field} has no host.`);
  return url;
}

/** The host of a URL without the brackets the URL keeps around IPv6 literals. */
export const bareHostname = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Off Lambda (the local gateway, a test) a private source is most often a file on this machine:
 * the refusal names the setting that allows it there.
 */
const localHint = () =>
  process.env.AWS_EXECUTION_ENV === undefined
    ? ' On the local gateway, start it with SOURCE_ALLOW_PRIVATE=true to fetch from this machine or its network.'
    : '';

export interface AddressCheckOptions {
  allowPrivate: boolean;
  lookup?: HostLookup;
}

/**
 * Resolves the URL's host once and checks every address it resolves to; the caller must connect
 * to the address returned (never re-resolve the name), so DNS cannot answer differently later.
 */
export async function resolveCheckedAddress(
  url: URL,
  options: AddressCheckOptions,
): Promise<{ address: string; family: 4 | 6 }> {
  const host = bareHostname(url);
  const literal = isIP(host);
  let addresses: ReadonlyArray<{ address: string; family: number }>;
  if (literal !== 0) {
    addresses = [{ address: host, family: literal }];
  } else {
    try {
      addresses = await (options.lookup ?? systemLookup)(host);
    } catch (error) {
      throw new ApiError('source_unreachable', `The host ${host} could not be resolved.`, { cause: error });
    }
    if (addresses.length === 0)
      throw new ApiError('source_unreachable', `The host ${host} could not be resolved.`);
  }
  if (!options.allowPrivate && !addresses.every((entry) => isPublicAddress(entry.address))) {
    const what = literal !== 0 ? `The address ${host} is` : `The host ${host} resolves to an address that is`;
    throw new ApiError(
      'source_blocked_address',
      `${what} not public (loopback, private, link-local or reserved); only public addresses are fetched.${localHint()}`,
    );
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
