// The `nutch` profile: Apache Nutch's BasicURLNormalizer with its default
// configuration (urlnormalizer-basic). Over the WHATWG parse (lowercase
// scheme and host, percent-decoded host, default and empty ports dropped,
// `.`/`..` resolved, empty path `/`, fragment dropped): userinfo dropped for
// http(s); path and query get drum's percent-encoding normalization (escapes
// of unreserved characters decoded, hex uppercased, characters outside RFC
// 3986's set escaped as UTF-8, a stray `%` as `%25`); runs of `/` in the path
// collapse to one. The query keeps its order. Never throws.

import { normalizePercent, PATH_RAW, QUERY_RAW } from '../percent.js';

export function nutchCanonical(s: string): string | null {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return null;
  }
  const path = normalizePercent(u.pathname, PATH_RAW).replace(/\/{2,}/g, '/');
  const query = u.search.length > 1 ? '?' + normalizePercent(u.search.slice(1), QUERY_RAW) : '';
  return u.protocol + '//' + u.host + path + query;
}
