// Measures candidate 64-bit URL fingerprints for drum's keys: throughput over
// URL-sized byte ranges, and spread (bucket chi-square over the top bits and
// full-64-bit collisions) on real and synthetic URLs. Prints a table for
// docs/design.md. Usage: node dist/scripts/hash-bench.js [file-with-urls]

import * as fs from 'node:fs';
import { murmur3, murmur3x2 } from '../src/fingerprint/hash.js';

type Hash2 = (b: Uint8Array, s: number, e: number, out: Uint32Array, at: number) => void;

const fnv2: Hash2 = (b, s, e, out, at) => {
  let h1 = 0x811c9dc5, h2 = 0x01000193 ^ 0x5bd1e995;
  for (let i = s; i < e; i++) {
    h1 = Math.imul(h1 ^ b[i]!, 0x01000193);
    h2 = Math.imul(h2 ^ b[i]!, 0x01000193);
  }
  out[at] = h1 >>> 0;
  out[at + 1] = h2 >>> 0;
};
const mm2: Hash2 = (b, s, e, out, at) => murmur3x2(b, s, e, 0x5bd1e995, 0x6cf4e2a1, out, at);
const mmTwice: Hash2 = (b, s, e, out, at) => {
  out[at] = murmur3(b, s, e, 0x5bd1e995);
  out[at + 1] = murmur3(b, s, e, 0x6cf4e2a1);
};

function load(path: string | undefined): { bytes: Buffer; ends: Uint32Array } {
  let text: string;
  if (path) {
    text = fs.readFileSync(path, 'utf8').split('\n').map((l) => l.split('\t')[1] ?? l).filter((l) => l.includes('://')).join('\n');
  } else {
    const parts: string[] = [];
    for (let i = 0; i < 1_000_000; i++) parts.push(`http://host${i % 5000}.example.com/dir${i % 97}/page-${i}.html?id=${i * 7}`);
    text = parts.join('\n');
  }
  const lines = text.split('\n');
  const bytes = Buffer.from(lines.join(''));
  const ends = new Uint32Array(lines.length);
  let at = 0;
  lines.forEach((l, i) => {
    at += Buffer.byteLength(l);
    ends[i] = at;
  });
  return { bytes, ends };
}

function run(name: string, h: Hash2, bytes: Buffer, ends: Uint32Array): void {
  const n = ends.length;
  const out = new Uint32Array(2 * n);
  // Warm up, then time the best of 5 passes.
  let best = Infinity;
  for (let r = 0; r < 6; r++) {
    const t = performance.now();
    let s = 0;
    for (let i = 0; i < n; i++) {
      h(bytes, s, ends[i]!, out, 2 * i);
      s = ends[i]!;
    }
    if (r > 0) best = Math.min(best, performance.now() - t);
  }
  const buckets = new Float64Array(1024);
  const seen = new Set<string>();
  let collisions = 0;
  for (let i = 0; i < n; i++) {
    buckets[out[2 * i]! >>> 22]!++;
    const k = `${out[2 * i]}:${out[2 * i + 1]}`;
    if (seen.has(k)) collisions++;
    seen.add(k);
  }
  const exp = n / 1024;
  let chi = 0;
  for (const c of buckets) chi += ((c - exp) * (c - exp)) / exp;
  const mb = bytes.length / 2 ** 20;
  console.log(`| ${name} | ${(n / best / 1000).toFixed(1)} M/s | ${(mb / (best / 1000)).toFixed(0)} MB/s | ${chi.toFixed(0)} (1023 df) | ${collisions} |`);
}

const { bytes, ends } = load(process.argv[2]);
console.log(`${ends.length} URLs (duplicates included), ${(bytes.length / ends.length).toFixed(1)} bytes on average`);
console.log('| hash | URLs/s | MB/s | chi-square, top 10 bits | 64-bit collisions among distinct inputs |');
console.log('|---|---:|---:|---:|---:|');
run('FNV-1a 32 ×2 (byte at a time)', fnv2, bytes, ends);
run('MurmurHash3 x86_32, two calls', mmTwice, bytes, ends);
run('MurmurHash3 x86_32, two lanes in one pass (drum)', mm2, bytes, ends);
