const maxLength = 100;

/**
 * The name a result file is given after its source: the URL's last path segment without its
 * extension, diacritics folded, reduced to [A-Za-z0-9._-]; 'file' when nothing is left.
 */
export function baseNameOf(url: URL): string {
  const segment = url.pathname.split('/').at(-1) ?? '';
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    decoded = segment;
  }
  // An encoded slash (%2F) must not make an extension of a folder's dots.
  decoded = decoded.split(/[\\/]/).at(-1) ?? '';
  const dot = decoded.lastIndexOf('.');
  const stem = dot > 0 ? decoded.slice(0, dot) : decoded;
  const reduced = stem
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+|[.-]+$/g, '')
    .slice(0, maxLength)
    .replace(/[.-]+$/, '');
  return reduced === '' ? 'file' : reduced;
}
