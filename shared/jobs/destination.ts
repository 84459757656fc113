import { config } from '#shared/config.ts';
import { ApiError } from '#shared/errors.ts';
import { assertHttpUrl, resolveCheckedAddress } from '#shared/source/address.ts';

/**
 * Where the service sends something (a webhook to `callbackUrl`, a result to `outputUrl`) is checked
 * like a source, before any work: an absolute https URL (http only where private sources are
 * allowed), whose host resolves to public addresses only. The request itself checks it again and
 * connects to the address it checked.
 */
export async function assertDestinationUrl(raw: string, field: string): Promise<URL> {
  const url = assertHttpUrl(raw, field);
  if (url.protocol !== 'https:' && !config.SOURCE_ALLOW_PRIVATE) {
    throw new ApiError('source_invalid_url', `${field} must be an https URL.`);
  }
  await resolveCheckedAddress(url, { allowPrivate: config.SOURCE_ALLOW_PRIVATE });
  return url;
}
