// URL rules learned from exact duplicates (DUST, Bar-Yossef, Keidar,
// Schonfeld 2007): two URLs of one host whose documents are byte-identical
// say which parameters and path variants do not change the document. For
// each exact pair the miner proposes the rules that fold it — `strip-param
// NAME` for each parameter the two URLs differ in, `index.html` dropped,
// a trailing slash dropped — and counts the pair as support. A rule's
// counter-examples are pairs of distinct URLs of the host that the rule
// folds together although their documents differ (every document of the
// run is looked at). Rules are written in the `--rules` format
// (src/canonicalize/user-rules.ts), each after a comment with its support
// and counter-examples; a rule with counter-examples is written commented
// out. The file is written the LevelDB way (FILE.tmp, fsync, rename, fsync of
// its directory; new directories made durable), so a power loss after the
// run leaves the earlier rules file or the new one, whole.
// Does not apply rules (drum ingest --rules does).
// REQUIRES: URLs as absolute http(s) URLs (others are ignored); RAM grows
// with the run's documents (one URL and key each).

import { dirname } from 'node:path';
import { DrumFs } from '../io/fs.js';
import { replaceFile } from '../io/replace-file.js';

interface Candidate {
  host: string;
  kind: 'strip-param' | 'index-html' | 'trailing-slash';
  name: string;
  support: number;
}

export interface SuggestedRule {
  host: string;
  /** The rules-file line. */
  rule: string;
  support: number;
  against: number;
  /** Human description. */
  what: string;
}

const INDEX_RE = /\/index\.html?(\?.*)?$/;
const SLASH_RE = /^(https?:\/\/[^/?#]+\/[^?#]*[^/?#])\/(\?.*)?$/;

function apply(c: Pick<Candidate, 'kind' | 'name'>, u: URL): string {
  if (c.kind === 'strip-param') {
    const v = new URL(u.href);
    v.searchParams.delete(c.name);
    return v.href.replace(/\?$/, '');
  }
  if (c.kind === 'index-html') return u.href.replace(INDEX_RE, '/$1');
  return u.href.replace(SLASH_RE, '$1$2');
}

function parse(s: string): URL | null {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}

export class RuleMiner {
  private readonly cands = new Map<string, Candidate>();
  /** host -> URL -> exact key (hex) of the run's documents. */
  private readonly docs = new Map<string, Map<string, string>>();

  /** Every document of the run (for counter-examples). */
  doc(url: string, key: string): void {
    const u = parse(url);
    if (u === null) return;
    let m = this.docs.get(u.hostname);
    if (m === undefined) this.docs.set(u.hostname, (m = new Map()));
    if (!m.has(u.href)) m.set(u.href, key);
  }

  /** An exact pair: `url`'s document is byte-identical to `rep`'s. */
  pair(url: string, rep: string): void {
    const a = parse(url);
    const b = parse(rep);
    if (a === null || b === null || a.hostname !== b.hostname || a.href === b.href) return;
    const host = a.hostname;
    const names = new Set<string>();
    const pa = new Map<string, string>([...a.searchParams].map(([k, v]) => [k, v]));
    const pb = new Map<string, string>([...b.searchParams].map(([k, v]) => [k, v]));
    for (const [k, v] of pa) if (pb.get(k) !== v) names.add(k);
    for (const [k, v] of pb) if (pa.get(k) !== v) names.add(k);
    const tries: Pick<Candidate, 'kind' | 'name'>[] = [...names].map((name) => ({ kind: 'strip-param' as const, name }));
    tries.push({ kind: 'index-html', name: '' }, { kind: 'trailing-slash', name: '' });
    // Each rule that changes the pair counts when all the proposed rules together fold it.
    let x = a;
    let y = b;
    const helping: Pick<Candidate, 'kind' | 'name'>[] = [];
    for (const c of tries) {
      const nx = apply(c, x);
      const ny = apply(c, y);
      if (x.href !== y.href && (nx !== x.href || ny !== y.href)) helping.push(c);
      x = new URL(nx);
      y = new URL(ny);
    }
    if (x.href !== y.href) return;
    for (const c of helping) {
      const id = `${host}\t${c.kind}\t${c.name}`;
      const e = this.cands.get(id) ?? { host, kind: c.kind, name: c.name, support: 0 };
      e.support++;
      this.cands.set(id, e);
    }
  }

  /** Pairs of distinct URLs of the host that `c` folds together although their documents differ. */
  private against(c: Candidate): number {
    const m = this.docs.get(c.host);
    if (m === undefined) return 0;
    const groups = new Map<string, Map<string, number>>();
    for (const [url, key] of m) {
      const f = apply(c, new URL(url));
      let g = groups.get(f);
      if (g === undefined) groups.set(f, (g = new Map()));
      g.set(key, (g.get(key) ?? 0) + 1);
    }
    let n = 0;
    for (const g of groups.values()) {
      if (g.size < 2) continue;
      let total = 0;
      let same = 0;
      for (const v of g.values()) {
        total += v;
        same += (v * (v - 1)) / 2;
      }
      n += (total * (total - 1)) / 2 - same;
    }
    return n;
  }

  /** Candidate rules with at least `minSupport` pairs, most support first (index.html before trailing slash per host). */
  suggest(minSupport: number): SuggestedRule[] {
    const out: SuggestedRule[] = [];
    const order = { 'strip-param': 0, 'index-html': 1, 'trailing-slash': 2 };
    const cands = [...this.cands.values()].filter((c) => c.support >= minSupport)
      .sort((p, q) => p.host.localeCompare(q.host) || order[p.kind] - order[q.kind] || q.support - p.support || p.name.localeCompare(q.name));
    for (const c of cands) {
      const against = this.against(c);
      const rule = c.kind === 'strip-param' ? `host ${c.host} strip-param ${c.name}`
        : c.kind === 'index-html' ? `host ${c.host} regex s|/index\\.html?(\\?.*)?$|/$1|`
          : `host ${c.host} regex s|^(https?://[^/?#]+/[^?#]*[^/?#])/(\\?.*)?$|$1$2|`;
      const what = c.kind === 'strip-param' ? `parameter ${c.name} never changes the document`
        : c.kind === 'index-html' ? 'index.html names the directory\'s document' : 'a trailing slash never changes the document';
      out.push({ host: c.host, rule, support: c.support, against, what });
    }
    return out;
  }
}

/** How the rules file is written: `fsync` (off only with --no-fsync, not crash-safe); `dfs`, the file-system seam (tests pass a fault hook). */
export interface RulesFileOptions {
  fsync: boolean;
  dfs?: DrumFs;
}

/** Writes the rules file (FILE.tmp, fsync, rename, fsync of its directory); returns the number of active (uncommented) rules. */
export function writeSuggestedRules(path: string, rules: readonly SuggestedRule[], o: RulesFileOptions): number {
  const lines = ['# drum content --suggest-rules: URL rules learned from exact duplicates of one host', '# a rule with counter-examples is commented out; review before use', ''];
  let active = 0;
  for (const r of rules) {
    lines.push(`# ${r.host}: ${r.what}: ${r.support} ${r.support === 1 ? 'pair' : 'pairs'}, ${r.against} against`);
    if (r.against === 0) {
      lines.push(r.rule);
      active++;
    } else lines.push(`# ${r.rule}`);
  }
  const dfs = o.dfs ?? new DrumFs();
  const dir = dirname(path);
  const text = Buffer.from(lines.join('\n') + '\n');
  // A full disk, no permission: DRUM_IO naming the file, and the earlier rules file (if any) stays whole.
  dfs.mkdirp(dir, o.fsync);
  replaceFile(dfs, path, (fd) => dfs.write(fd, text, 0, text.length, 0), { fsync: o.fsync, fsyncDir: o.fsync ? dir : undefined });
  return active;
}
