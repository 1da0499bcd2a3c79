// The `heritrix` profile: Heritrix 3's default canonicalization policy
// (RulesCanonicalizationPolicy.getDefaultRules) over the URL as Heritrix's
// parser leaves it, which the WHATWG parse stands in for (lowercase scheme
// and host, punycode, default port dropped, `.`/`..` resolved, fragment
// dropped). The six rules run in order on the URL string, each as Heritrix
// writes it: lowercase (the whole URL), strip-userinfo, strip-wwwn (`www`,
// `wwwN.`; never on a bare host with no path past `/`), strip-session-ids
// (jsessionid/phpsessid/sid of 32 alphanumerics, ASPSESSIONIDxxxxxxxx of 24
// letters), strip-session-cfids, fixup-query-string. Never throws.

/** One named rule of the rule list: a string-to-string rewrite. */
export interface NamedRule {
  name: string;
  apply(url: string): string;
}

/** Heritrix's doStripRegexMatch: on a full match, group 1 + group 2 (absent groups are empty). */
function strip(re: RegExp): (url: string) => string {
  return (url) => {
    const m = re.exec(url);
    return m ? (m[1] ?? '') + (m[2] ?? '') : url;
  };
}

const sessionIds = [
  strip(/^(.+)(?:(?:jsessionid|phpsessid)=[0-9a-zA-Z]{32})(?:&(.*))?$/i),
  strip(/^(.+)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$/i),
  strip(/^(.+)(?:aspsessionid[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$/i),
];

function fixupQueryString(url: string): string {
  if (url.length === 0) return url;
  const i = url.lastIndexOf('?');
  if (i <= 0) return url;
  if (i === url.length - 1) return url.slice(0, -1);
  if (url[i + 1] === '&') return url.length === i + 2 ? url.slice(0, -2) : url.slice(0, i + 1) + url.slice(i + 2);
  if (url.endsWith('&')) return url.slice(0, -1);
  return url;
}

/** The rule list, in the order Heritrix applies it. */
export const HERITRIX_RULES: readonly NamedRule[] = [
  { name: 'lowercase', apply: (u) => u.toLowerCase() },
  { name: 'strip-userinfo', apply: strip(/^((?:https?|ftps?):\/\/)(?:[^/]+@)(.*)$/i) },
  { name: 'strip-wwwn', apply: strip(/^(https?:\/\/)(?:www[0-9]*\.)([^/]*\/.+)$/i) },
  { name: 'strip-session-ids', apply: (u) => sessionIds.reduce((acc, f) => f(acc), u) },
  { name: 'strip-session-cfids', apply: strip(/^(.+)(?:cfid=[^&]+&cftoken=[^&]+(?:jsession=[^&]+)?)(?:&(.*))?$/i) },
  { name: 'fixup-query-string', apply: fixupQueryString },
];

/** The `heritrix` profile: WHATWG's serialization without the fragment, then the rules. */
export function heritrixCanonical(s: string): string | null {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return null;
  }
  u.hash = '';
  return HERITRIX_RULES.reduce((acc, r) => r.apply(acc), u.href);
}
