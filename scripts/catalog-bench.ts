// Measures the catalog's host table at crawl scale: applying per-round host
// counts to the plain host -> count table (what Catalog.applyHostCounts does)
// versus the same plus a by-count index, then top-N by a full scan with a
// bounded heap (Catalog.topHosts) versus reading the index. Prints a
// Markdown table for docs/cli.md. Deterministic inputs (seeded sfc32); only
// the times depend on the machine. Writes only under a temp directory.
// Usage: node dist/scripts/catalog-bench.js [--hosts 1000000] [--rounds 10] [--per-round 200000] [--top 100]
// REQUIRES: the four flags, when given, are positive integers (not checked).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { Catalog } from '../src/catalog/catalog.js';
import { Sfc32 } from './lib/models/prng.js';
import { pathBytes } from './lib/bench/measure.js';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

const HOSTS = arg('hosts', 1_000_000);
const ROUNDS = arg('rounds', 10);
const PER_ROUND = arg('per-round', 200_000);
const TOP = arg('top', 100);

/** Round r's counts: PER_ROUND draws, host index skewed toward small numbers (a few big hosts). */
function roundCounts(r: number): Map<string, number> {
  const rng = new Sfc32(1000 + r);
  const m = new Map<string, number>();
  for (let i = 0; i < PER_ROUND; i++) {
    const u = rng.next() / 2 ** 32;
    const h = Math.floor(HOSTS * u * u * u); // cubic skew: host 0.. gets most
    const host = `host${h}.example`;
    m.set(host, (m.get(host) ?? 0) + 1 + (rng.next() % 3));
  }
  return m;
}

/** By-count index key: ascending order = descending count, then host (the alternative design). */
function countKey(count: number, host: string): string {
  return (Number.MAX_SAFE_INTEGER - count).toString(16).padStart(14, '0') + '|' + host;
}

/**
 * One design on a raw Level: applies every round's counts to the host table,
 * with the by-count index kept beside it when `indexed`; returns the open
 * database, its index and the time the rounds took.
 */
async function applyRaw(root: string, rounds: Map<string, number>[], name: string, indexed: boolean) {
  const db = new Level<string, unknown>(join(root, name), { valueEncoding: 'json' });
  await db.open();
  const hosts = db.sublevel<string, number>('hosts', { valueEncoding: 'json' });
  const byCount = db.sublevel<string, string>('byCount', { valueEncoding: 'utf8' });
  const start = performance.now();
  for (let r = 0; r < ROUNDS; r++) {
    const names = [...rounds[r]!.keys()];
    const olds = await hosts.getMany(names);
    const ops: object[] = [];
    names.forEach((h, i) => {
      const old = olds[i] ?? 0;
      const now = old + rounds[r]!.get(h)!;
      if (indexed && old > 0) ops.push({ type: 'del', key: countKey(old, h), sublevel: byCount });
      if (indexed) ops.push({ type: 'put', key: countKey(now, h), value: '', sublevel: byCount });
      ops.push({ type: 'put', key: h, value: now, sublevel: hosts });
    });
    ops.push({ type: 'put', key: `round|${r}`, value: 1 });
    await db.batch(ops as never);
  }
  const ms = performance.now() - start;
  return { db, byCount, ms };
}

/** The times of one run: applying the rounds (ms) per design, and top-N by scan and by index. */
interface Times {
  applyPlain: number;
  applyPlainRaw: number;
  applyIndexed: number;
  topScan: number;
  topIndexed: number;
}

/** Times the three designs on the same rounds in a temp directory, then prints the table. */
async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'drum-catalog-bench-'));
  try {
    const rounds = Array.from({ length: ROUNDS }, (_, r) => roundCounts(r));
    const distinct = new Set(rounds.flatMap((m) => [...m.keys()])).size;

    // The same two designs written identically on a raw Level (order alternated), so the
    // only difference is the by-count index ops.
    const rawPlain1 = await applyRaw(root, rounds, 'raw-plain-1', false);
    const rawIdx1 = await applyRaw(root, rounds, 'indexed-1', true);
    const rawIdx = await applyRaw(root, rounds, 'indexed', true);
    const rawPlain = await applyRaw(root, rounds, 'raw-plain', false);
    const applyPlainRaw = (rawPlain.ms + rawPlain1.ms) / 2;
    const applyIndexed = (rawIdx.ms + rawIdx1.ms) / 2;
    const byCount = rawIdx.byCount;
    for (const x of [rawPlain1, rawIdx1, rawPlain]) await x.db.close();

    // Catalog as built: host -> count, one put per host and round; top-N by a scan with a heap.
    const cat = await Catalog.open(join(root, 'catalog'), { sync: false });
    let t = performance.now(); // measured after the raw runs: the JIT is warm for all
    for (let r = 0; r < ROUNDS; r++) await cat.applyHostCounts('bench', r, rounds[r]!);
    const applyPlain = performance.now() - t;

    t = performance.now();
    const viaScan = await cat.topHosts(TOP);
    const topScan = performance.now() - t;
    t = performance.now();
    const viaIndex = (await byCount.keys({ limit: TOP }).all()).map((k) => ({
      host: k.slice(15),
      uniqueUrls: Number.MAX_SAFE_INTEGER - parseInt(k.slice(0, 14), 16),
    }));
    const topIndexed = performance.now() - t;
    const same = JSON.stringify(viaIndex) === JSON.stringify(viaScan);
    await cat.close();
    await rawIdx.db.close();
    printTable(root, rounds, distinct, same, { applyPlain, applyPlainRaw, applyIndexed, topScan, topIndexed });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Prints the run's figures and the Markdown table (sizes on disk read now, with every database closed). */
function printTable(root: string, rounds: Map<string, number>[], distinct: number, same: boolean, t: Times): void {
  const updates = rounds.reduce((s, m) => s + m.size, 0);
  console.log(`hosts: ${distinct.toLocaleString('en-US')} distinct, ${ROUNDS} rounds, ${updates.toLocaleString('en-US')} host updates; top ${TOP}; results agree: ${same}\n`);
  console.log('| table | apply all rounds | per host update | top-N query | size on disk |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  const mib = (p: string) => `${(pathBytes(p) / 2 ** 20).toFixed(1)} MiB`;
  const row = (name: string, ms: number, top: string, dir: string) =>
    console.log(`| ${name} | ${(ms / 1000).toFixed(2)} s | ${((ms * 1000) / updates).toFixed(1)} µs | ${top} | ${mib(join(root, dir))} |`);
  row('Catalog: host table, top-N by scan + bounded heap', t.applyPlain, `${t.topScan.toFixed(1)} ms`, 'catalog');
  row('raw level: host table only (same code as below)', t.applyPlainRaw, '(scan, as above)', 'raw-plain');
  row('raw level: host table + by-count index', t.applyIndexed, `${t.topIndexed.toFixed(1)} ms`, 'indexed');
}

await main();
