// Resolves public CanonicalPolicyOptions into a validated CanonicalPolicy with
// its stable `id` (what the store records and compares), and holds the
// documented default lists (tracking parameters, session names, index files).
// Does not canonicalize anything. Throws DrumError('DRUM_BAD_OPTION') on a bad value.

import { createHash } from 'node:crypto';
import { DrumError } from '../errors.js';
import type { CanonicalPolicy, CanonicalPolicyOptions } from './types.js';

/** Bumped whenever a rule changes what any URL canonicalizes to. */
export const POLICY_VERSION = 1;

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
 * Validates options and returns the policy. The id is `<mode>/v<version>`
 * plus, in this order, `+www`, `+https`, `+index`, `+lowerpath` and
 * `+tp-<8 hex>` when the tracking list differs from the default.
 */
export function resolvePolicy(o: CanonicalPolicyOptions = {}): CanonicalPolicy {
  if (o === null || typeof o !== 'object') bad('canonical policy options must be an object');
  const mode = o.mode ?? 'default';
  if (mode !== 'default' && mode !== 'none') bad(`canonical.mode must be default|none, got ${String(mode)}`);
  const maxLineBytes = o.maxLineBytes ?? 2048;
  if (typeof maxLineBytes !== 'number' || !Number.isInteger(maxLineBytes) || maxLineBytes < 16 || maxLineBytes > 2 ** 30) {
    bad(`canonical.maxLineBytes must be an integer in [16, 2^30], got ${String(maxLineBytes)}`);
  }
  const stripWww = flag(o, 'stripWww');
  const foldHttps = flag(o, 'foldHttps');
  const stripIndex = flag(o, 'stripIndex');
  const lowercasePath = flag(o, 'lowercasePath');
  const trackingParams = o.trackingParams === undefined ? DEFAULT_NORMALIZED : normalizeNames(o.trackingParams);
  if (mode === 'none') {
    if (stripWww || foldHttps || stripIndex || lowercasePath || o.trackingParams !== undefined) {
      bad('canonical mode none takes no rule flags or trackingParams (it keeps the exact line bytes)');
    }
    return { mode, stripWww, foldHttps, stripIndex, lowercasePath, trackingParams: [], maxLineBytes, id: `none/v${POLICY_VERSION}` };
  }
  let id = `default/v${POLICY_VERSION}`;
  if (stripWww) id += '+www';
  if (foldHttps) id += '+https';
  if (stripIndex) id += '+index';
  if (lowercasePath) id += '+lowerpath';
  if (!sameList(trackingParams, DEFAULT_NORMALIZED)) id += `+tp-${listHash(trackingParams)}`;
  return { mode, stripWww, foldHttps, stripIndex, lowercasePath, trackingParams, maxLineBytes, id };
}
