// The profile registry and driver: each profile's documented rule list
// (names, in order) and its canonicalizer, and profileCanonical(), which
// prepares the input (tab/CR/LF removed, spaces trimmed, relative
// references resolved), runs the profile and guards drum's guarantees on
// the result: printable ASCII, a URL WHATWG parses as http(s) with a host,
// and a fixed point (canon(canon(x)) = canon(x)); a result that fails is a
// reject. Does not apply user rules or the SURT form (post.ts does).

import type { RejectReason } from '../../input/types.js';
import type { ProfileName } from '../types.js';
import { safebrowsingCanonical } from './google.js';
import { HERITRIX_RULES, heritrixCanonical } from './heritrix.js';
import { iaCanonical } from './ia.js';
import { nutchCanonical } from './nutch.js';
import { printableAscii, schemeOf } from './parts.js';
import { w3libCanonical } from './w3lib.js';

export interface Profile {
  /** The documented rules, in the order they apply. */
  rules: readonly string[];
  /** A scheme-less input without a base is read as `http://` + input (the peer's parser does so). */
  schemeless: boolean;
  /** Characters removed anywhere in the input before parsing (tab, CR, LF; the webarchive-commons parser also U+2028/9). */
  strip: RegExp;
  /** Canonical form of an absolute URL string, or null when the peer's parser refuses it. */
  canon(s: string): string | null;
}

const WHATWG_STRIP = /[\t\r\n]/g;
const WAC_STRIP = /[\t\r\n\u2028\u2029]/g;

export const PROFILES: Readonly<Record<Exclude<ProfileName, 'drum'>, Profile>> = {
  heritrix: { rules: ['whatwg-parse', ...HERITRIX_RULES.map((r) => r.name)], schemeless: false, strip: WHATWG_STRIP, canon: heritrixCanonical },
  nutch: { rules: ['whatwg-parse', 'strip-userinfo', 'percent-encoding', 'collapse-slashes'], schemeless: false, strip: WHATWG_STRIP, canon: nutchCanonical },
  w3lib: { rules: ['lowercase-host', 'idn-punycode', 'empty-port', 'path-requote', 'query-sort-urlencode', 'fragment'], schemeless: false, strip: WHATWG_STRIP, canon: w3libCanonical },
  safebrowsing: {
    rules: ['fragment', 'unescape-repeatedly', 'host-dots', 'host-ip', 'idn-punycode', 'path-dots-slashes', 'default-port', 'escape'],
    schemeless: true, strip: WAC_STRIP, canon: safebrowsingCanonical,
  },
  ia: {
    rules: ['safebrowsing', 'strip-wwwn', 'strip-userinfo', 'default-port', 'lowercase-path-query', 'session-ids', 'trailing-slash', 'sort-query', 'empty-query', 'surt'],
    schemeless: true, strip: WAC_STRIP, canon: iaCanonical,
  },
};

/** A result drum can key: printable ASCII and a URL WHATWG reads as http(s) with a host. */
function keyable(url: string): boolean {
  if (!printableAscii(url)) return false;
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

function isWellFormed(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** Why a result is not keyable: WHATWG refuses an http(s) URL only for its authority. */
function refusal(url: string): RejectReason {
  try {
    new URL(url); // eslint-disable-line no-new
    return 'invalid-url';
  } catch {
    return 'invalid-host';
  }
}

/** Prepares the input: tab/CR/LF dropped, spaces trimmed, a relative reference resolved. */
function prepare(input: string, base: string | null, p: Profile): string | RejectReason {
  if (!isWellFormed(input)) return 'invalid-utf8';
  const s = input.replace(p.strip, '').replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, ''); // eslint-disable-line no-control-regex
  if (s === '') return 'empty';
  let scheme = schemeOf(s);
  // `host:8080/x` is a scheme-less host and port, not a scheme.
  if (scheme !== null && p.schemeless && /^\d+(?:[/?#]|$)/.test(s.slice(scheme.length + 1))) scheme = null;
  if (scheme !== null) return scheme === 'http' || scheme === 'https' ? s : 'unsupported-scheme';
  if (base !== null && base !== '') {
    try {
      const u = new URL(s, base);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : 'unsupported-scheme';
    } catch {
      return 'relative-without-base';
    }
  }
  return p.schemeless ? 'http://' + s : 'relative-without-base';
}

/** Runs profile `name` on `input` (resolved against `base`) and guards the result. */
export function profileUrl(input: string, base: string | null, name: Exclude<ProfileName, 'drum'>): string | RejectReason {
  const p = PROFILES[name];
  const s = prepare(input, base, p);
  if (schemeOf(s) === null) return s as RejectReason;
  const out = p.canon(s);
  if (out === null) return 'invalid-host';
  if (!keyable(out)) return refusal(out);
  const again = p.canon(out);
  if (again === out) return out;
  // Not yet a fixed point: one more pass, kept only if that one is.
  if (again !== null && keyable(again) && p.canon(again) === again) return again;
  return 'invalid-url';
}
