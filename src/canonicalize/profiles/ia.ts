// The `ia` profile: the Internet Archive's aggressive canonicalization as
// the Wayback Machine keys its CDX index (webarchive-commons
// AggressiveIAURLCanonicalizer = the Safe Browsing rules of google.ts, then
// IAURLCanonicalizer with AggressiveIACanonicalizerRules; an escaped `&` in
// the query stays escaped, as the Python surt package keeps it). After google.ts:
// lowercase the scheme, strip one leading `www`/`wwwN.` label, drop userinfo and a default port,
// lowercase path and query, strip session ids (path `(S(...))/` forms before
// `.aspx`; query jsessionid/phpsessid/sid of 32 alphanumerics,
// ASPSESSIONIDxxxxxxxx of 24 letters, cfid+cftoken), drop a trailing `/`
// unless the path is `/`, sort the query's parameters, drop an empty query.
// The store keys the SURT form of the result (surt.ts). Never throws.

import { googleParts, joinParts } from './google.js';

const PATH_SESSION = [
  /^.*\/(\((?:[a-z]\([0-9a-z]{24}\))+\)\/)[^?]+\.aspx.*$/i,
  /^.*\/(\([0-9a-z]{24}\)\/)(?:[^?]+\.aspx.*)$/i,
];

const QUERY_SESSION = [
  /^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$/i,
  /^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$/i,
  /^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$/i,
  /^(.*)(?:aspsessionid[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$/i,
  /^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$/i,
];

/** Removes a path session id (the captured `(...)/` part). */
function stripPathSession(path: string): string {
  for (const re of PATH_SESSION) {
    const m = re.exec(path);
    if (m && m[1] !== undefined) {
      const at = path.indexOf(m[1]);
      path = path.slice(0, at) + path.slice(at + m[1].length);
    }
  }
  return path;
}

/** Removes a query session id: keeps what is before it and, after an `&`, what follows. */
function stripQuerySession(q: string): string {
  for (const re of QUERY_SESSION) {
    const m = re.exec(q);
    if (m) q = m[2] === undefined ? m[1]! : m[1]! + m[2];
  }
  return q;
}

/** Sorts `&`-separated parameters by name, then value (empty parameters sort first). */
export function alphaReorderQuery(q: string): string {
  const params = q.split('&');
  if (params.length <= 1) return q;
  const key = (p: string): [string, string] => {
    const eq = p.indexOf('=');
    return eq < 0 ? [p, ''] : [p.slice(0, eq), p.slice(eq + 1)];
  };
  return params
    .map((p) => ({ p, k: key(p) }))
    .sort((a, b) => (a.k[0] < b.k[0] ? -1 : a.k[0] > b.k[0] ? 1 : a.k[1] < b.k[1] ? -1 : a.k[1] > b.k[1] ? 1 : 0))
    .map((x) => x.p)
    .join('&');
}

/** The `ia` profile's URL stage (before the SURT form). */
export function iaCanonical(s: string): string | null {
  const p = googleParts(s, true);
  if (p === null) return null;
  p.scheme = p.scheme.toLowerCase();
  p.host = p.host.replace(/^www\d*\./, '');
  p.userinfo = null;
  let path = stripPathSession(p.path.toLowerCase());
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  p.path = path;
  if (p.query !== null) {
    const q = alphaReorderQuery(stripQuerySession(p.query).toLowerCase());
    p.query = q === '' ? null : q;
  }
  return joinParts(p);
}
