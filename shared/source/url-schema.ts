import * as z from 'zod';

/**
 * What a URL field admits, as the document states it: an absolute http(s) URL with a host and no
 * user name or password. The service reads the text itself (`assertHttpUrl`), and answers 400
 * `source_invalid_url` for one that breaks the rule; the pattern only tells clients and forms so.
 */
export const httpUrlPattern = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#@\\\\]+([/?#][^\\s]*)?$';

/** The document's words for a URL field. */
export const httpUrlMeta = { format: 'uri', pattern: httpUrlPattern } as const;

/** A source URL field of a request body: the text as sent, at most 4096 characters. */
export const httpUrlField = () => z.string().min(1).max(4096).meta(httpUrlMeta);
