// User rules (`--rules FILE`): parses the documented line format and applies
// the rules to a canonical URL, after the profile. One rule a line:
//
//   # comment                       blank lines and `#` lines are skipped
//   global strip-param NAME         remove query parameter NAME (case-insensitive; NAME* is a prefix)
//   host HOST strip-param NAME      the same, only on HOST and its subdomains
//   global regex s/PATTERN/REPLACEMENT/FLAGS
//   host HOST regex s|PATTERN|REPLACEMENT|FLAGS
//
// A regex is a JavaScript RegExp over the whole canonical URL; any delimiter
// character not in the pattern follows the `s`; FLAGS are `i` and `g`;
// REPLACEMENT takes `$1`.. and `$&`. Rules apply in file order. Throws
// DrumError('DRUM_BAD_OPTION') naming the line on a bad rule; applying never
// throws. Does not re-canonicalize (post.ts does).

import { DrumError } from '../errors.js';

export type UserRule =
  | { host: string | null; kind: 'strip-param'; name: string; prefix: boolean }
  | { host: string | null; kind: 'regex'; re: RegExp; replacement: string };

const HOST_RE = /^[a-z0-9_.-]+$/;
const NAME_RE = /^[^\s&=#]+$/;

function bad(line: number, msg: string): never {
  throw new DrumError('DRUM_BAD_OPTION', `rules line ${line}: ${msg}`);
}

/** `s<d>PATTERN<d>REPLACEMENT<d>FLAGS` (a `\<d>` inside stays in the part). */
function parseSubst(text: string, line: number): { re: RegExp; replacement: string } {
  if (text.length < 4 || text[0] !== 's') bad(line, `regex must look like s/PATTERN/REPLACEMENT/FLAGS, got ${JSON.stringify(text)}`);
  const d = text[1]!;
  if (/[\sA-Za-z0-9\\]/.test(d)) bad(line, `bad regex delimiter ${JSON.stringify(d)}`);
  const parts: string[] = [];
  let cur = '';
  for (let i = 2; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\' && text[i + 1] === d) {
      cur += d;
      i++;
    } else if (ch === d && parts.length < 2) {
      parts.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  if (parts.length !== 2) bad(line, `regex needs three ${d} delimiters: s${d}PATTERN${d}REPLACEMENT${d}FLAGS`);
  if (!/^[gi]*$/.test(cur)) bad(line, `regex flags may be g and i, got ${JSON.stringify(cur)}`);
  try {
    return { re: new RegExp(parts[0]!, cur), replacement: parts[1]! };
  } catch (e) {
    return bad(line, `bad pattern ${JSON.stringify(parts[0])}: ${(e as Error).message}`);
  }
}

/** Parses a rules file. */
export function parseRules(text: string): UserRule[] {
  const out: UserRule[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const raw = lines[i]!.trim();
    if (raw === '' || raw.startsWith('#')) continue;
    let rest = raw;
    let host: string | null = null;
    const scope = /^(\S+)\s+/.exec(rest);
    if (scope === null) bad(n, `expected 'global' or 'host HOST', got ${JSON.stringify(raw)}`);
    rest = rest.slice(scope[0].length);
    if (scope[1] === 'host') {
      const h = /^(\S+)\s+/.exec(rest);
      if (h === null || !HOST_RE.test(h[1]!.toLowerCase())) bad(n, 'host needs a host name (letters, digits, . - _)');
      host = h[1]!.toLowerCase();
      rest = rest.slice(h[0].length);
    } else if (scope[1] !== 'global') {
      bad(n, `expected 'global' or 'host HOST', got ${JSON.stringify(scope[1])}`);
    }
    const act = /^(\S+)\s+(.*)$/.exec(rest);
    if (act === null) bad(n, `expected an action and its argument, got ${JSON.stringify(rest)}`);
    if (act[1] === 'strip-param') {
      const name = act[2]!.trim();
      if (!NAME_RE.test(name) || name.indexOf('*') !== name.length - 1 && name.includes('*')) {
        bad(n, `bad parameter name ${JSON.stringify(name)} (no spaces, & = #; * only at the end)`);
      }
      const prefix = name.endsWith('*');
      out.push({ host, kind: 'strip-param', name: (prefix ? name.slice(0, -1) : name).toLowerCase(), prefix });
    } else if (act[1] === 'regex') {
      out.push({ host, kind: 'regex', ...parseSubst(act[2]!.trim(), n) });
    } else {
      bad(n, `unknown action ${JSON.stringify(act[1])} (strip-param or regex)`);
    }
  }
  return out;
}

function hostMatches(rule: string, host: string): boolean {
  return host === rule || (host.length > rule.length && host.endsWith(rule) && host[host.length - rule.length - 1] === '.');
}

function stripParam(url: string, name: string, prefix: boolean): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const kept = url.slice(q + 1).split('&').filter((p) => {
    const eq = p.indexOf('=');
    const n = (eq < 0 ? p : p.slice(0, eq)).toLowerCase();
    return prefix ? !n.startsWith(name) : n !== name;
  });
  const query = kept.join('&');
  return query === '' ? url.slice(0, q) : url.slice(0, q + 1) + query;
}

/** Applies `rules` in order to `url`, whose host (no port, lowercase) is `host`. */
export function applyRules(rules: readonly UserRule[], url: string, host: string): string {
  for (const r of rules) {
    if (r.host !== null && !hostMatches(r.host, host)) continue;
    if (r.kind === 'strip-param') url = stripParam(url, r.name, r.prefix);
    else url = url.replace(r.re, r.replacement);
  }
  return url;
}
