import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import {
  assertHttpUrl,
  type HostLookup,
  isPublicAddress,
  resolveCheckedAddress,
} from '#shared/source/address.ts';

/** A lookup that must never run: literal addresses are judged without DNS. */
const noLookup: HostLookup = async (hostname) => {
  throw new Error(`lookup of ${hostname} was not expected`);
};

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    return error instanceof ApiError ? error.code : `not an ApiError: ${String(error)}`;
  }
}

const check = (raw: string, lookup: HostLookup = noLookup) =>
  resolveCheckedAddress(assertHttpUrl(raw), { allowPrivate: false, lookup });

describe('assertHttpUrl', () => {
  it.each([
    '',
    'example.com/a.png',
    '/relative/a.png',
    '//example.com/a.png',
    'ftp://example.com/a.png',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:image/png;base64,AAAA',
    'gopher://example.com/',
    'http://',
    'http://[::1',
    'http://256.256.256.256/',
    'http://user:secret@example.com/a.png',
    'http://user@example.com/a.png',
    'https://:secret@example.com/a.png',
  ])('refuses %j with source_invalid_url', (raw) => {
    expect(() => assertHttpUrl(raw)).toThrowError(expect.objectContaining({ code: 'source_invalid_url' }));
  });

  it('accepts absolute http and https URLs, any case of scheme', () => {
    expect(assertHttpUrl('HTTPS://Example.COM/a.png?x=1').href).toBe('https://example.com/a.png?x=1');
    expect(assertHttpUrl('http://example.com:8080/').port).toBe('8080');
  });

  it('names the field in its message', () => {
    expect(() => assertHttpUrl('ftp://x', 'callbackUrl')).toThrowError(/callbackUrl/);
  });
});

describe('isPublicAddress on the spellings that reach loopback, private or special space', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '::',
    '::1',
    '[::1]',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '::ffff:0:7f00:1',
    '::7f00:1',
    '64:ff9b::7f00:1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::808:808',
    '2002:7f00:1::1',
    '2002:a00:1::',
    '2002:c0a8:101::1',
    '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo, client 127.0.0.1
    '2001:0:a00:1:8000:63bf:f7f7:f7f7', // Teredo, server 10.0.0.1
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'fc00::1',
    'fd12:3456:789a::1',
    'fec0::1',
    'ff02::1',
    'ff0e::1',
    '2001:db8::1',
    '100::1',
    '3fff::1',
    '4000::1',
    '0177.0.0.1',
    '0x7f.1',
    '2130706433',
    '127.1',
    'not an address',
    '',
    'localhost',
  ])('%j is not public', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%j is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });
});

describe('resolveCheckedAddress on literal hosts, as a URL spells them', () => {
  it.each([
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://017700000001/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://0x7f.1/',
    'http://0x7f.0.0.1/',
    'http://127.1/',
    'http://127.0.1/',
    'http://127.0.0.1./',
    'http://127.000.000.001/',
    'http://０x7f.1/', // full-width digits are folded by IDNA before the IPv4 parser
    'http://１２７.０.０.１/',
    'http://0/',
    'http://0.0.0.0/',
    'http://0x0/',
    'http://[::]/',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'http://[::127.0.0.1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://[64:ff9b::10.0.0.1]/',
    'http://[2002:7f00:1::]/',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0xa9.0xfe.0xa9.0xfe/',
    'http://2852039166/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'http://[fc00::1]/',
    'http://100.64.0.1/',
    'http://224.0.0.1/',
    'http://[ff02::1]/',
    'http://240.0.0.1/',
    'http://255.255.255.255/',
    'http://10.0.0.1/',
    'http://012.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.0.1/',
    'http://0xc0.0xa8.1/',
    'https://[::1]:8443/a.png',
  ])('%s → source_blocked_address without any DNS lookup', async (raw) => {
    expect(await codeOf(check(raw))).toBe('source_blocked_address');
  });

  it('returns a public literal as it is, with its family', async () => {
    await expect(check('http://8.8.8.8/a')).resolves.toEqual({ address: '8.8.8.8', family: 4 });
    await expect(check('http://134744072/a')).resolves.toEqual({ address: '8.8.8.8', family: 4 });
    await expect(check('http://[2606:4700::1111]/a')).resolves.toEqual({
      address: '2606:4700::1111',
      family: 6,
    });
  });

  it('lets every address through when private addresses are allowed', async () => {
    const options = { allowPrivate: true, lookup: noLookup };
    await expect(resolveCheckedAddress(new URL('http://127.1/'), options)).resolves.toEqual({
      address: '127.0.0.1',
      family: 4,
    });
    await expect(resolveCheckedAddress(new URL('http://[::1]/'), options)).resolves.toEqual({
      address: '::1',
      family: 6,
    });
  });
});

describe('resolveCheckedAddress on names', () => {
  it('resolves once and refuses a name with one private address among public ones', async () => {
    const lookup = vi.fn<HostLookup>(async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ]);
    expect(await codeOf(check('https://files.example.test/a.png', lookup))).toBe('source_blocked_address');
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(lookup).toHaveBeenCalledWith('files.example.test');
  });

  it.each(['127.0.0.1', '::1', '169.254.169.254', '::ffff:10.0.0.1', 'fd00::5'])(
    'refuses a name that resolves to %s',
    async (address) => {
      const lookup: HostLookup = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
      const error = await check('http://innocent.example.test/', lookup).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'source_blocked_address' });
      // The message names the host asked for, never the internal address it resolved to.
      expect((error as Error).message).toContain('innocent.example.test');
      expect((error as Error).message).not.toContain(address);
    },
  );

  it('returns the first of several public addresses, in resolver order', async () => {
    const lookup: HostLookup = async () => [
      { address: '2606:4700::6810:84e5', family: 6 },
      { address: '104.16.132.229', family: 4 },
    ];
    await expect(check('http://cdn.example.test/x', lookup)).resolves.toEqual({
      address: '2606:4700::6810:84e5',
      family: 6,
    });
  });

  it('answers source_unreachable when the name does not resolve', async () => {
    const failing: HostLookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    };
    expect(await codeOf(check('http://nowhere.invalid/', failing))).toBe('source_unreachable');
    expect(await codeOf(check('http://nowhere.invalid/', async () => []))).toBe('source_unreachable');
  });

  it('uses the system resolver by default: localhost is refused', async () => {
    const error = await resolveCheckedAddress(new URL('http://localhost:1/'), { allowPrivate: false }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'source_blocked_address' });
  });
});

// ---- Properties -------------------------------------------------------------------------------

/** Blocked IPv4 space as [first address, prefix length]. */
const blockedV4: ReadonlyArray<[number, number]> = (
  [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const
).map(([base, prefix]) => [toInt(base), prefix]);

/** /8 blocks wholly in public unicast space. */
const publicFirstOctets = [8, 23, 34, 45, 52, 64, 81, 91, 104, 151, 185, 212];

function toInt(dotted: string): number {
  return dotted.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
}

const octets = (n: number): number[] => [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
const hex16 = (n: number): string => n.toString(16);

const blockedV4Int = fc
  .constantFrom(...blockedV4)
  .chain(([base, prefix]) =>
    fc.integer({ min: 0, max: 2 ** (32 - prefix) - 1 }).map((offset) => base + offset),
  );

const publicV4Int = fc
  .record({ first: fc.constantFrom(...publicFirstOctets), rest: fc.integer({ min: 0, max: 0xffffff }) })
  .map(({ first, rest }) => first * 0x1000000 + rest);

type Radix = 'dec' | 'oct' | 'hex';
const radix = fc.constantFrom<Radix>('dec', 'oct', 'hex');
const spell = (value: number, how: Radix): string =>
  how === 'hex' ? `0x${value.toString(16)}` : how === 'oct' ? `0${value.toString(8)}` : String(value);

/** Every way an IPv4 address can be written as a URL host (WHATWG / inet_aton rules). */
const v4HostSpelling = (n: number): fc.Arbitrary<string> => {
  const [a, b, c, d] = octets(n) as [number, number, number, number];
  return fc.oneof(
    fc
      .tuple(radix, radix, radix, radix)
      .map(([ra, rb, rc, rd]) => [spell(a, ra), spell(b, rb), spell(c, rc), spell(d, rd)].join('.')),
    fc
      .tuple(radix, radix, radix)
      .map(([ra, rb, rc]) => [spell(a, ra), spell(b, rb), spell(c * 256 + d, rc)].join('.')),
    fc.tuple(radix, radix).map(([ra, rb]) => [spell(a, ra), spell(b * 65536 + c * 256 + d, rb)].join('.')),
    radix.map((r) => spell(n, r)),
    fc.constant(`${a}.${b}.${c}.${d}.`),
  );
};

/** The IPv4 address inside IPv6: mapped, translated, NAT64, 6to4 and Teredo. */
const v6EmbeddingSpelling = (n: number): fc.Arbitrary<string> => {
  const [a, b, c, d] = octets(n) as [number, number, number, number];
  const high = hex16(n >>> 16);
  const low = hex16(n & 0xffff);
  const dotted = `${a}.${b}.${c}.${d}`;
  return fc.constantFrom(
    `[::ffff:${dotted}]`,
    `[::ffff:${high}:${low}]`,
    `[0:0:0:0:0:ffff:${high}:${low}]`,
    `[::ffff:0:${dotted}]`,
    `[64:ff9b::${dotted}]`,
    `[64:ff9b::${high}:${low}]`,
    `[2002:${high}:${low}::1]`,
    `[2002:${high}:${low}:ffff::]`,
    // Teredo: a public server, the client's address inverted in the last 32 bits.
    `[2001:0:808:808:8000:0:${hex16((~n >>> 16) & 0xffff)}:${hex16(~n & 0xffff)}]`,
    // …and the address as the Teredo server.
    `[2001:0:${high}:${low}:0:0:f7f7:f7f7]`,
  );
};

const blockedV6Literal = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((n) => `[fe80::${hex16(n)}]`),
  fc
    .tuple(fc.integer({ min: 0xfc00, max: 0xfdff }), fc.integer({ min: 0, max: 0xffff }))
    .map(([top, n]) => `[${hex16(top)}::${hex16(n)}]`),
  fc
    .tuple(fc.integer({ min: 0xff00, max: 0xffff }), fc.integer({ min: 0, max: 0xffff }))
    .map(([top, n]) => `[${hex16(top)}::${hex16(n)}]`),
  fc.constantFrom('[::]', '[::1]', '[0::0]', '[0:0::1]', '[::0:1]'),
  fc.integer({ min: 0, max: 0xffff }).map((n) => `[2001:db8::${hex16(n)}]`),
);

describe('properties of the address check', () => {
  it('refuses every blocked IPv4 address in every URL spelling, without DNS', async () => {
    await fc.assert(
      fc.asyncProperty(
        blockedV4Int.chain((n) => fc.oneof(v4HostSpelling(n), v6EmbeddingSpelling(n))),
        async (host) => {
          expect(await codeOf(check(`http://${host}/file.png`))).toBe('source_blocked_address');
        },
      ),
      { numRuns: 400 },
    );
  });

  it('refuses generated link-local, unique-local, multicast, loopback and documentation IPv6', async () => {
    await fc.assert(
      fc.asyncProperty(blockedV6Literal, async (host) => {
        expect(await codeOf(check(`https://${host}:8443/x`))).toBe('source_blocked_address');
      }),
      { numRuns: 200 },
    );
  });

  it('judges blocked addresses as not public in any spelling ipaddr reads, and never throws', () => {
    fc.assert(
      fc.property(
        blockedV4Int.chain((n) => fc.oneof(v4HostSpelling(n), v6EmbeddingSpelling(n))),
        (spelling) => {
          expect(isPublicAddress(spelling)).toBe(false);
        },
      ),
      { numRuns: 400 },
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(typeof isPublicAddress(text)).toBe('boolean');
      }),
    );
  });

  it('refuses a name when any one of its addresses is blocked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(publicV4Int, { maxLength: 4 }),
        blockedV4Int,
        fc.nat(),
        async (publics, blocked, at) => {
          const addresses = publics.map((n) => ({ address: octets(n).join('.'), family: 4 }));
          addresses.splice(at % (addresses.length + 1), 0, { address: octets(blocked).join('.'), family: 4 });
          expect(await codeOf(check('http://mixed.example.test/', async () => addresses))).toBe(
            'source_blocked_address',
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('accepts public IPv4 in every spelling and embedding, and returns it canonical', async () => {
    await fc.assert(
      fc.asyncProperty(
        publicV4Int.chain((n) =>
          fc.tuple(fc.constant(n), fc.oneof(v4HostSpelling(n), v6EmbeddingSpelling(n))),
        ),
        async ([n, host]) => {
          const { address } = await check(`http://${host}/file.png`);
          expect(isPublicAddress(address)).toBe(true);
          if (!host.startsWith('[')) expect(address).toBe(octets(n).join('.'));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('accepts generated global unicast IPv6', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(
          fc.integer({ min: 0x2400, max: 0x2a0f }),
          fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 7, maxLength: 7 }),
        ),
        async ([top, rest]) => {
          const literal = [top, ...rest].map(hex16).join(':');
          expect(isPublicAddress(literal)).toBe(true);
          await expect(check(`http://[${literal}]/`)).resolves.toMatchObject({ family: 6 });
        },
      ),
      { numRuns: 200 },
    );
  });
});
