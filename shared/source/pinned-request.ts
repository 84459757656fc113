import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import { ApiError } from '#shared/errors.ts';
import { bareHostname, type HostLookup, resolveCheckedAddress } from '#shared/source/address.ts';

export interface PinnedRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A stream is piped (a file sent with its Content-Length); a failure to read it aborts the request. */
  body?: string | Buffer | Readable;
  allowPrivate: boolean;
  /** Aborts the exchange; its reason is what the returned promise rejects with. */
  signal: AbortSignal;
  lookup?: HostLookup;
}

/** A lookup for node:net that answers every query with the one address already checked. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

const reasonOf = (signal: AbortSignal): unknown => signal.reason ?? new Error('aborted');

/** Says what went wrong in words a caller can act on, without addresses or internals. */
function unreachable(host: string, error: unknown): ApiError {
  const code = (error as { code?: unknown }).code;
  const text = typeof code === 'string' ? code : '';
  let what = `Could not connect to ${host}.`;
  if (text === 'ECONNREFUSED') what = `${host} refused the connection.`;
  else if (text === 'ECONNRESET') what = `${host} closed the connection before answering.`;
  else if (/^(EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|EADDRNOTAVAIL)$/.test(text))
    what = `${host} could not be reached.`;
  else if (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|^ERR_TLS|^ERR_SSL/.test(text)) {
    what = `The TLS certificate of ${host} was not accepted.`;
  } else if (/^HPE_/.test(text)) what = `${host} did not answer with valid HTTP.`;
  return new ApiError('source_unreachable', what, { cause: error });
}

/**
 * Sends one HTTP(S) request to the address the host was resolved to and checked at, never to a
 * second resolution of the name (no DNS rebinding), without following redirects and without a
 * shared connection pool. Resolves with the response once its head arrived; the caller reads or
 * destroys the body. A failure to connect is 400 `source_unreachable`; an abort rejects with the
 * signal's reason.
 */
export async function openPinnedRequest(url: URL, options: PinnedRequestOptions): Promise<IncomingMessage> {
  const { signal } = options;
  if (signal.aborted) throw reasonOf(signal);
  const { address, family } = await resolveCheckedAddress(url, options);
  if (signal.aborted) throw reasonOf(signal);
  const host = bareHostname(url);
  const requestOptions: RequestOptions & { servername?: string } = {
    method: options.method ?? 'GET',
    headers: options.headers,
    lookup: pinnedLookup(address, family),
    agent: false,
    signal,
    // TLS names the host, not the address, so certificates are checked against the name asked for.
    ...(url.protocol === 'https:' && isIP(host) === 0 ? { servername: host } : {}),
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const request = send(url, requestOptions, resolve);
    // `on`, not `once`: a socket error after the head arrived is reported here too (the response
    // then fails on its own), and an unheard 'error' event would crash the process.
    request.on('error', (error) => {
      if (signal.aborted) reject(reasonOf(signal));
      else reject(unreachable(host, error));
    });
    const { body } = options;
    if (body instanceof Readable) {
      body.once('error', (error) => request.destroy(error));
      body.pipe(request);
    } else request.end(body);
  });
}
