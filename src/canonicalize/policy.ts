// Resolves public CanonicalPolicyOptions into a validated CanonicalPolicy with
// its stable `id` (what the store records and compares), and holds the
// documented default lists (tracking parameters, session names, index files).
// Does not canonicalize anything. Throws DrumError('DRUM_BAD_OPTION') on a bad value.

import { createHash } from 'node:crypto';
import { DrumError } from '../errors.js';
import type { CanonicalPolicy, CanonicalPolicyOptions, ProfileName } from './types.js';
import { parseRules } from './user-rules.js';

/** Bumped whenever a rule changes what any URL canonicalizes to. */
export const POLICY_VERSION = 1;
/** Longest accepted line in bytes when the policy does not say (CanonicalPolicyOptions.maxLineBytes). */
export const DEFAULT_MAX_LINE_BYTES = 2048;

/**
 * Each profile's version, bumped whenever its rule list changes what any URL
 * canonicalizes to. `drum` is POLICY_VERSION (its id keeps the `default/` name).
 */
export const PROFILE_VERSIONS: Readonly<Record<ProfileName, number>> = {
  drum: POLICY_VERSION, heritrix: 1, ia: 2, nutch: 1, w3lib: 1, safebrowsing: 1,
};

/**
 * Query parameters removed by default (names match case-insensitively; a
 * trailing `*` makes a prefix). Only click ids and campaign tags that never
 * select content: the intersection of what Firefox query stripping, Brave and
 * ClearURLs' global rules remove. Generic names (`ref`, `source`, `cid`) are
 * deliberately left out.
 */
export const DEFAULT_TRACKING_PARAMS: readonly string[] = [
  'utm_*', // Google Analytics / Urchin campaign tags
  'gclid', 'gclsrc', 'dclid', 'gbraid', 'wbraid', // Google Ads click ids
  '_ga', '_gl', // Google Analytics cross-domain linker
  'fbclid', // Meta
  'msclkid', // Microsoft Ads
  'yclid', '_openstat', // Yandex
  'twclid', // X / Twitter
  'ttclid', // TikTok
  'li_fat_id', // LinkedIn
  'igshid', // Instagram share id
  'mc_cid', 'mc_eid', // Mailchimp
  '_hsenc', '_hsmi', '__hssc', '__hstc', '__hsfp', // HubSpot
  'mkt_tok', // Marketo
  'oly_anon_id', 'oly_enc_id', // Omeda
  'vero_id', // Vero
  'wickedid', // Wicked Reports
];

/** Session-id parameter names (query and `;name=` path parameters), always removed. */
export const SESSION_PARAMS: readonly string[] = ['jsessionid', 'phpsessid', 'sessionid', 'aspsessionid*', 'cfid', 'cftoken'];

/** `sid` is removed only when its value looks like a session token (>= 16 letters/digits). */
export const SID_TOKEN = /^[0-9A-Za-z]{16,}$/;

/** Last path segments removed by the optional stripIndex rule (case-insensitive). */
export const INDEX_FILES: readonly string[] = [
  'index.html', 'index.htm', 'index.shtml', 'index.php', 'index.asp', 'index.aspx', 'index.jsp', 'index.cfm',
  'default.asp', 'default.aspx', 'default.htm', 'default.html',
];

const NAME_RE = /^[A-Za-z0-9._~!$'()+,;:@/?-]*\*?$/;

function bad(msg: string): never {
  throw new DrumError('DRUM_BAD_OPTION', msg);
}

function flag(o: CanonicalPolicyOptions, name: 'stripWww' | 'foldHttps' | 'stripIndex' | 'lowercasePath'): boolean {
  const v = o[name];
  if (v === undefined) return false;
  if (typeof v !== 'boolean') bad(`canonical.${name} must be a boolean, got ${String(v)}`);
  return v;
}

/** Lowercased, deduplicated, sorted: two lists that strip the same names compare equal. */
function normalizeNames(list: unknown): string[] {
  if (!Array.isArray(list)) bad('canonical.trackingParams must be an array of parameter names');
  const out = new Set<string>();
  for (const v of list) {
    if (typeof v !== 'string' || v.length === 0 || !NAME_RE.test(v)) {
      bad(`canonical.trackingParams: bad parameter name ${JSON.stringify(v)} (no & = # % or spaces; * only at the end)`);
    }
    out.add(v.toLowerCase());
  }
  return [...out].sort();
}

const DEFAULT_NORMALIZED = normalizeNames(DEFAULT_TRACKING_PARAMS);

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Short, stable hash naming a non-default tracking list in the policy id. */
function listHash(list: readonly string[]): string {
  return createHash('sha256').update(list.join('\n')).digest('hex').slice(0, 8);
}

/**
 * Validates options and returns the policy. The id is `default/v<version>`
 * for the drum profile (`<profile>/v<version>` for another, `none/v1` raw)
 * plus, in this order, `+www`, `+https`, `+index`, `+lowerpath`,
 * `+tp-<8 hex>` when the tracking list differs from the default,
 * `+rules-<8 hex>` (SHA-256 of the rules text) and `+surt`.
 */
export function resolvePolicy(o: CanonicalPolicyOptions = {}): CanonicalPolicy {
  if (o === null || typeof o !== 'object') bad('canonical policy options must be an object');
  const mode = o.mode ?? 'default';
  if (mode !== 'default' && mode !== 'none') bad(`canonical.mode must be default|none, got ${String(mode)}`);
  const maxLineBytes = o.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  if (typeof maxLineBytes !== 'number' || !Number.isInteger(maxLineBytes) || maxLineBytes < 16 || maxLineBytes > 2 ** 30) {
    bad(`canonical.maxLineBytes must be an integer in [16, 2^30], got ${String(maxLineBytes)}`);
  }
  const stripWww = flag(o, 'stripWww');
  const foldHttps = flag(o, 'foldHttps');
  const stripIndex = flag(o, 'stripIndex');
  const lowercasePath = flag(o, 'lowercasePath');
  const trackingParams = o.trackingParams === undefined ? DEFAULT_NORMALIZED : normalizeNames(o.trackingParams);
  const profile = o.profile ?? 'drum';
  if (typeof profile !== 'string' || !Object.hasOwn(PROFILE_VERSIONS, profile)) {
    bad(`canonical.profile must be one of ${Object.keys(PROFILE_VERSIONS).join('|')}, got ${String(profile)}`);
  }
  const rules = o.rules ?? null;
  if (rules !== null) {
    if (typeof rules !== 'string') bad('canonical.rules must be the text of a rules file');
    parseRules(rules); // DRUM_BAD_OPTION with the line number on a bad rule
  }
  if (o.surt !== undefined && typeof o.surt !== 'boolean') bad(`canonical.surt must be a boolean, got ${String(o.surt)}`);
  const surt = o.surt === true || profile === 'ia';
  const flags = stripWww || foldHttps || stripIndex || lowercasePath || o.trackingParams !== undefined;
  if (mode === 'none') {
    if (flags || o.profile !== undefined || rules !== null || o.surt !== undefined) {
      bad('canonical mode none takes no profile, rule flags, trackingParams, rules or surt (it keeps the exact line bytes)');
    }
    return {
      mode, profile: 'drum', rules: null, surt: false, stripWww, foldHttps, stripIndex, lowercasePath,
      trackingParams: [], maxLineBytes, id: `none/v${POLICY_VERSION}`,
    };
  }
  if (profile !== 'drum' && flags) {
    bad(`profile ${profile} takes no rule flags or trackingParams: they belong to the drum profile (a user rules file can add rules)`);
  }
  let id = profile === 'drum' ? `default/v${POLICY_VERSION}` : `${profile}/v${PROFILE_VERSIONS[profile]}`;
  if (stripWww) id += '+www';
  if (foldHttps) id += '+https';
  if (stripIndex) id += '+index';
  if (lowercasePath) id += '+lowerpath';
  if (profile === 'drum' && !sameList(trackingParams, DEFAULT_NORMALIZED)) id += `+tp-${listHash(trackingParams)}`;
  if (rules !== null) id += `+rules-${createHash('sha256').update(rules).digest('hex').slice(0, 8)}`;
  if (surt && profile !== 'ia') id += '+surt';
  return { mode, profile, rules, surt, stripWww, foldHttps, stripIndex, lowercasePath, trackingParams, maxLineBytes, id };
}
