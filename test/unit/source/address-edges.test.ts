import { describe, expect, it, vi } from 'vitest';
import { statusOf } from '#shared/http/errors.ts';
import {
  assertHttpUrl,
  type HostLookup,
  isPublicAddress,
  resolveCheckedAddress,
} from '#shared/source/address.ts';
import { failure } from '../../support/http-error.ts';

/** Edges of the address rules: bracketed IPv6, the RFC 6145 block, and what a refusal says. */
describe('isPublicAddress', () => {
  it('reads an IPv6 address inside the brackets a URL keeps around it', () => {
    expect(isPublicAddress('[2606:4700:4700::1111]')).toBe(true);
    expect(isPublicAddress('[::1]')).toBe(false);
  });

  it('strips only a pair of brackets: one bracket alone leaves no address', () => {
    expect(isPublicAddress('18.8.8.8]')).toBe(false);
    expect(isPublicAddress('[8.8.8.88')).toBe(false);
  });

  it('judges an RFC 6145 IPv4-translated address (::ffff:0:a.b.c.d) by the IPv4 it reaches', () => {
    expect(isPublicAddress('::ffff:0:8.8.8.8')).toBe(true);
    expect(isPublicAddress('::ffff:0:127.0.0.1')).toBe(false);
    expect(isPublicAddress('::ffff:0:10.0.0.1')).toBe(false);
  });
});

describe('assertHttpUrl', () => {
  it('names the sourceUrl field unless told another', () => {
    expect(() => assertHttpUrl('ftp://example.com/a')).toThrow('sourceUrl must use http or https.');
    expect(() => assertHttpUrl('ftp://example.com/a', 'callbackUrl')).toThrow(
      'callbackUrl must use http or https.',
    );
  });
});

describe('resolveCheckedAddress', () => {
  const url = new URL('http://source.test/file');

  it('a name that does not resolve: 400 source_unreachable naming the host, with the resolver error as cause', async () => {
    const cause = Object.assign(new Error('getaddrinfo ENOTFOUND source.test'), { code: 'ENOTFOUND' });
    const lookup: HostLookup = async () => {
      throw cause;
    };
    const error = await failure(resolveCheckedAddress(url, { allowPrivate: false, lookup }));
    expect(error.code).toBe('source_unreachable');
    expect(statusOf(error)).toBe(400);
    expect(error.message).toBe('The host source.test could not be resolved.');
    expect(error.cause).toBe(cause);
  });

  it('a name with no address at all: the same answer', async () => {
    const error = await failure(resolveCheckedAddress(url, { allowPrivate: false, lookup: async () => [] }));
    expect(error.code).toBe('source_unreachable');
    expect(error.message).toBe('The host source.test could not be resolved.');
  });

  it('a blocked address literal is named as an address, a blocked name as a name', async () => {
    const literal = await failure(
      resolveCheckedAddress(new URL('http://127.0.0.1/file'), { allowPrivate: false }),
    );
    expect(literal.code).toBe('source_blocked_address');
    expect(literal.message).toBe(
      'The address 127.0.0.1 is not public (loopback, private, link-local or reserved); only public addresses are fetched. On the local gateway, start it with SOURCE_ALLOW_PRIVATE=true to fetch from this machine or its network.',
    );
    const named = await failure(
      resolveCheckedAddress(url, {
        allowPrivate: false,
        lookup: async () => [{ address: '10.1.2.3', family: 4 }],
      }),
    );
    expect(named.message).toBe(
      'The host source.test resolves to an address that is not public (loopback, private, link-local or reserved); only public addresses are fetched. On the local gateway, start it with SOURCE_ALLOW_PRIVATE=true to fetch from this machine or its network.',
    );
  });

  it('names SOURCE_ALLOW_PRIVATE only off Lambda, where it can be set', async () => {
    vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs24.x');
    try {
      const refused = await failure(
        resolveCheckedAddress(new URL('http://127.0.0.1/file'), { allowPrivate: false }),
      );
      expect(refused.message).not.toMatch(/SOURCE_ALLOW_PRIVATE/);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
