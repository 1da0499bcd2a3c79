// Agreement of each canonicalization profile with its crawler's own public
// test cases: reads the vector files under test/canonicalize/vectors/ (one
// suite each, extracted from the cited test file), runs the profile on every
// case and counts agreements. A case is in scope unless keying its expected
// output would break drum's guarantees: its input is not an http(s) URL
// (another scheme, a relative reference without a base) or its expected
// output is not printable ASCII or, in URL form, has an empty authority or
// is not a URL WHATWG parses as http(s) with a host. An expected `null` means the peer refuses the input:
// agreement is a reject. Prints a table (or --json) and, with --verbose,
// every disagreement. Reads nothing else and writes nothing.
// Usage: node dist/scripts/canon-agreement.js [--dir D] [--json] [--verbose]

import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { canonicalizeString, resolvePolicy } from '../src/canonicalize/index.js';
import { HERITRIX_RULES } from '../src/canonicalize/profiles/heritrix.js';
import { PROFILES, profileUrl } from '../src/canonicalize/profiles/index.js';
import { printableAscii, schemeOf } from '../src/canonicalize/profiles/parts.js';
import type { ProfileName } from '../src/canonicalize/types.js';

export const VECTOR_DIR = 'test/canonicalize/vectors';

export interface VectorCase {
  in: string;
  out: string | null;
  /** Run only this rule of the profile (Heritrix's per-rule tests). */
  rule?: string;
  /** 'surt' (a SURT key, the default for ia) or 'url' (the profile's URL before the SURT form). */
  form?: 'url' | 'surt';
  file?: string;
}

export interface VectorSuite {
  suite: string;
  profile: Exclude<ProfileName, 'drum'>;
  source: { repository: string; commit: string; path: string; licence: string };
  note: string;
  cases: VectorCase[];
}

export interface SuiteAgreement {
  suite: string;
  profile: string;
  cases: number;
  inScope: number;
  agreeInScope: number;
  agreeAll: number;
  /** In-scope cases drum's own default policy (the drum profile, SURT form where the case is) agrees with. */
  agreeDrumDefault: number;
  /** agreeInScope / inScope. */
  agreement: number;
  disagreements: { in: string; want: string | null; got: string; inScope: boolean }[];
}

export function loadSuites(dir = VECTOR_DIR): VectorSuite[] {
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as VectorSuite);
}

function isHttpUrl(s: string): boolean {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[/?#]|$)/.test(s)) return false; // an empty authority names no host
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** Would keying this case's expected output keep drum's guarantees? */
export function inScope(s: VectorSuite, c: VectorCase): boolean {
  const scheme = schemeOf(c.in.trim());
  const httpInput = scheme === 'http' || scheme === 'https'
    || (PROFILES[s.profile].schemeless && c.in.trim() !== '' && (scheme === null || /^[^:]*:\d+(?:[/?#]|$)/.test(c.in.trim())));
  if (c.rule !== undefined) return true;
  if (!httpInput) return false;
  if (c.out === null) return true;
  if (!printableAscii(c.out)) return false;
  const surt = c.form === 'surt' || (c.form === undefined && s.profile === 'ia');
  return surt || isHttpUrl(c.out);
}

/** What drum's default policy gives for a case (its SURT form where the case is a SURT key). */
function runDrumDefault(s: VectorSuite, c: VectorCase): string {
  const surt = c.form === 'surt' || (c.form === undefined && s.profile === 'ia');
  const r = canonicalizeString(c.in, null, resolvePolicy({ surt }));
  return typeof r === 'string' ? `!reject ${r}` : r.url;
}

/** What drum gives for one case: the key, or `!reject <reason>`. */
export function run(s: VectorSuite, c: VectorCase): string {
  if (c.rule !== undefined) {
    const rule = HERITRIX_RULES.find((r) => r.name === c.rule);
    if (rule === undefined) throw new Error(`${s.suite}: no rule ${c.rule}`);
    return rule.apply(c.in);
  }
  if (c.form === 'url' && s.profile === 'ia') {
    const r = profileUrl(c.in, null, 'ia');
    return r.includes('://') ? r : `!reject ${r}`;
  }
  const r = canonicalizeString(c.in, null, resolvePolicy({ profile: s.profile }));
  return typeof r === 'string' ? `!reject ${r}` : r.url;
}

export function agreement(suites: VectorSuite[]): SuiteAgreement[] {
  return suites.map((s) => {
    const a: SuiteAgreement = {
      suite: s.suite, profile: s.profile, cases: s.cases.length, inScope: 0, agreeInScope: 0, agreeAll: 0, agreeDrumDefault: 0, agreement: 0,
      disagreements: [],
    };
    for (const c of s.cases) {
      const scoped = inScope(s, c);
      const got = run(s, c);
      const ok = c.out === null ? got.startsWith('!reject') : got === c.out;
      if (scoped) a.inScope++;
      if (ok) a.agreeAll++;
      if (ok && scoped) a.agreeInScope++;
      if (scoped) {
        const d = c.rule === undefined ? runDrumDefault(s, c) : c.in; // a rule case: drum has no such rule
        if (c.out === null ? d.startsWith('!reject') : d === c.out) a.agreeDrumDefault++;
      }
      if (!ok) a.disagreements.push({ in: c.in, want: c.out, got, inScope: scoped });
    }
    a.agreement = a.inScope === 0 ? 1 : a.agreeInScope / a.inScope;
    return a;
  });
}

function pct(n: number, d: number): string {
  return d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`;
}

function main(argv: string[]): void {
  let dir = VECTOR_DIR;
  const json = argv.includes('--json');
  const verbose = argv.includes('--verbose');
  const i = argv.indexOf('--dir');
  if (i >= 0 && argv[i + 1] !== undefined) dir = argv[i + 1]!;
  const res = agreement(loadSuites(resolve(dir)));
  if (json) {
    process.stdout.write(JSON.stringify(res, null, 1) + '\n');
    return;
  }
  process.stdout.write('| suite | profile | cases | in scope | agree (in scope) | agree (all) | drum default (in scope) |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n');
  for (const a of res) {
    process.stdout.write(`| ${a.suite} | ${a.profile} | ${a.cases} | ${a.inScope} | ${a.agreeInScope} (${pct(a.agreeInScope, a.inScope)}) | ${a.agreeAll} (${pct(a.agreeAll, a.cases)}) | ${a.agreeDrumDefault} (${pct(a.agreeDrumDefault, a.inScope)}) |\n`);
  }
  if (verbose) {
    for (const a of res) {
      for (const d of a.disagreements) {
        process.stdout.write(`${a.suite}${d.inScope ? '' : ' (out of scope)'}: ${JSON.stringify(d.in)}\n  want ${JSON.stringify(d.want)}\n  got  ${JSON.stringify(d.got)}\n`);
      }
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
