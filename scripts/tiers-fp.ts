// Measures the in-RAM tiers: Bloom FP rate observed vs expected (blocked
// formula) vs the classic formula, by bits per key, on uniform keys and on
// host-structured keys (top 24 bits shared by many URLs); and lookup
// throughput of HotCache, RecentTable and BlockedBloom. Prints Markdown tables
// for docs/tiers.md. Deterministic keys (seeded xoshiro128**); only the
// throughput column depends on the machine.
// Usage: node dist/scripts/tiers-fp.js [--keys 4000000] [--queries 4000000]
// Does not touch the store or any file.

import { BlockedBloom, optimalK } from '../src/tiers/bloom.js';
import { HotCache } from '../src/tiers/hot-cache.js';
import { RecentTable } from '../src/tiers/recent-table.js';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

/** xoshiro128** seeded by splitmix32: uint32 stream. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  const sm = (): number => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = sm(), b = sm(), c = sm(), d = sm();
  return () => {
    const r = Math.imul(((Math.imul(b, 5) << 7) | (Math.imul(b, 5) >>> 25)), 9) >>> 0;
    const t = b << 9;
    c ^= a; d ^= b; b ^= c; a ^= d; c ^= t;
    d = (d << 11) | (d >>> 21);
    return r;
  };
}

/** n keys as parallel hi/lo arrays; hosts > 0 draws the top 24 bits of hi from that many hosts. */
function keys(n: number, seed: number, hosts = 0): { hi: Uint32Array; lo: Uint32Array } {
  const r = rng(seed);
  const hostFp = new Uint32Array(hosts);
  for (let i = 0; i < hosts; i++) hostFp[i] = r() & 0xffffff00;
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    hi[i] = hosts > 0 ? (hostFp[r() % hosts]! | (r() & 0xff)) >>> 0 : r();
    lo[i] = r();
  }
  return { hi, lo };
}

const N = arg('keys', 4_000_000);
const Q = arg('queries', 4_000_000);

function fpTable(label: string, hosts: number): void {
  const ins = keys(N, 1, hosts);
  const qry = keys(Q, 2, hosts);
  console.log(`\n### Bloom FP rate, ${label}: ${N.toLocaleString('en')} keys added, ${Q.toLocaleString('en')} absent keys queried\n`);
  console.log('| bits/key | k | blocks | observed FP | expected (blocked) | classic formula | observed / expected |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const bpk of [4, 6, 8, 10, 12, 16]) {
    const f = BlockedBloom.forKeys(N, bpk);
    for (let i = 0; i < N; i++) f.add(ins.hi[i]!, ins.lo[i]!);
    let fn = 0;
    for (let i = 0; i < N; i++) if (!f.mayContain(ins.hi[i]!, ins.lo[i]!)) fn++;
    if (fn !== 0) throw new Error(`false negatives: ${fn}`);
    let fp = 0;
    for (let i = 0; i < Q; i++) if (f.mayContain(qry.hi[i]!, qry.lo[i]!)) fp++;
    const obs = fp / Q;
    const exp = f.expectedFpRate();
    const cls = f.classicFpRate();
    console.log(`| ${bpk} | ${optimalK(bpk)} | ${f.blocks} | ${pct(obs)} | ${pct(exp)} | ${pct(cls)} | ${(obs / exp).toFixed(3)} |`);
  }
}

function pct(x: number): string {
  return `${(x * 100).toFixed(4)}%`;
}

/** Best of 3 runs of fn over the query arrays, in M ops/s. */
function mops(fn: () => number, ops: number): string {
  let best = Infinity;
  let sink = 0;
  for (let r = 0; r < 3; r++) {
    const t = process.hrtime.bigint();
    sink += fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t));
  }
  if (sink === -1) console.log('');
  return ((ops / best) * 1e3).toFixed(1);
}

function throughput(): void {
  const ops = Math.min(Q, 4_000_000);
  const q = keys(ops, 3, 100_000);
  console.log(`\n### Lookup throughput (${ops.toLocaleString('en')} lookups per run, best of 3, host-structured keys)\n`);
  console.log('| structure | size | bytes | op | M ops/s |');
  console.log('|---|---:|---:|---|---:|');
  for (const entries of [1 << 18, 1 << 20]) {
    const c = new HotCache(entries);
    for (let i = 0; i < ops; i += 2) c.insert(q.hi[i]!, q.lo[i]!);
    const m = mops(() => { let h = 0; for (let i = 0; i < ops; i++) if (c.has(q.hi[i]!, q.lo[i]!)) h++; return h; }, ops);
    console.log(`| HotCache | 2^${Math.log2(entries)} entries | ${c.bytes} | has (full cache) | ${m} |`);
    const ins = mops(() => { for (let i = 0; i < ops; i++) c.insert(q.hi[i]!, q.lo[i]!); return 0; }, ops);
    console.log(`| HotCache | 2^${Math.log2(entries)} entries | ${c.bytes} | insert (full, evicting) | ${ins} |`);
  }
  for (const entries of [1 << 20, 1 << 22]) {
    const t = new RecentTable(entries);
    const m = mops(() => { let h = 0; for (let i = 0; i < ops; i++) if (t.hasOrAdd(q.hi[i]!, q.lo[i]!)) h++; return h; }, ops);
    console.log(`| RecentTable | 2^${Math.log2(entries)} entries | ${t.bytes} | hasOrAdd | ${m} |`);
    const h = mops(() => { let n = 0; for (let i = 0; i < ops; i++) if (t.has(q.hi[i]!, q.lo[i]!)) n++; return n; }, ops);
    console.log(`| RecentTable | 2^${Math.log2(entries)} entries | ${t.bytes} | has | ${h} |`);
  }
  const f = BlockedBloom.forKeys(N, 10);
  const ins = keys(N, 1, 100_000);
  const a = mops(() => { f.clear(); for (let i = 0; i < N; i++) f.add(ins.hi[i]!, ins.lo[i]!); return 0; }, N);
  console.log(`| BlockedBloom | ${N.toLocaleString('en')} keys, 10 bits/key | ${f.bytes} | add | ${a} |`);
  const m = mops(() => { let h = 0; for (let i = 0; i < ops; i++) if (f.mayContain(q.hi[i]!, q.lo[i]!)) h++; return h; }, ops);
  console.log(`| BlockedBloom | ${N.toLocaleString('en')} keys, 10 bits/key | ${f.bytes} | mayContain (absent keys) | ${m} |`);
  const p = mops(() => { let h = 0; for (let i = 0; i < N; i++) if (f.mayContain(ins.hi[i]!, ins.lo[i]!)) h++; return h; }, N);
  console.log(`| BlockedBloom | ${N.toLocaleString('en')} keys, 10 bits/key | ${f.bytes} | mayContain (present keys) | ${p} |`);
}

fpTable('uniform random 64-bit keys', 0);
fpTable('host-structured keys (100,000 hosts share the top 24 bits)', 100_000);
throughput();
