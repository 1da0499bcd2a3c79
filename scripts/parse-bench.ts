// Micro-benchmark of the parse stage (what a parse worker does per chunk):
// splits a file into LineChunks with LineSplitter (outside the timing), then
// runs canonicalizeBatch, keysOfBatch, the reject merge (= Parser.parse) and
// packParsed/packChunk (into pooled slabs) over every chunk, R times, and prints CPU and wall
// ns/link per sub-stage, best of R, plus a digest of every output byte and key
// (compare digests between builds: an optimization must not change them).
// Single thread; no tiers, no IO in the timed part. The VM is shared: compare
// best-of-R CPU figures, and interleave A/B builds.
// Usage: node dist/scripts/parse-bench.js [--file F] [--links N] [--repeat R]
//   [--chunk-bytes B] [--policy default|none|all] [--host-bits H] [--json]

import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { canonicalizeBatch, BatchScratch } from '../src/canonicalize/batch.js';
import { resolvePolicy } from '../src/canonicalize/policy.js';
import type { CanonicalPolicyOptions } from '../src/canonicalize/types.js';
import { keysOfBatch } from '../src/fingerprint/key.js';
import { LineSplitter } from '../src/input/split.js';
import type { LineChunk } from '../src/input/types.js';
import { Parser } from '../src/engine/pipeline/parse.js';
import { chunkSlabBytes, packChunk, packParsed, parsedSlabBytes } from '../src/engine/pipeline/pack.js';
import { SlabPool } from '../src/engine/workers/slab-pool.js';

interface Args { file: string; links: number; repeat: number; chunkBytes: number; policy: string; hostBits: number; json: boolean }

function parseArgs(argv: string[]): Args {
  const a: Args = { file: '/tmp/bench/links2m.txt', links: Infinity, repeat: 5, chunkBytes: 1 << 20, policy: 'default', hostBits: 24, json: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i]!;
    const v = argv[i + 1];
    if (k === '--json') { a.json = true; continue; }
    if (v === undefined) throw new Error(`${k} needs a value`);
    i++;
    if (k === '--file') a.file = v;
    else if (k === '--links') a.links = Number(v);
    else if (k === '--repeat') a.repeat = Number(v);
    else if (k === '--chunk-bytes') a.chunkBytes = Number(v);
    else if (k === '--policy') a.policy = v;
    else if (k === '--host-bits') a.hostBits = Number(v);
    else throw new Error(`unknown option ${k}`);
  }
  return a;
}

function policyOf(name: string): CanonicalPolicyOptions {
  if (name === 'none') return { mode: 'none' };
  if (name === 'all') return { stripWww: true, foldHttps: true, stripIndex: true, lowercasePath: true };
  return {};
}

/** Splits the file into chunks the way the file reader does (1 MiB reads). */
function loadChunks(a: Args, maxLineBytes: number): { chunks: LineChunk[]; links: number } {
  const data = readFileSync(a.file);
  const sp = new LineSplitter({ input: 0, format: 'lines', maxLineBytes, chunkBytes: a.chunkBytes });
  const chunks: LineChunk[] = [];
  let links = 0;
  const take = (cs: LineChunk[]): boolean => {
    for (const c of cs) {
      if (links + c.count > a.links) c.count = a.links - links;
      links += c.count;
      chunks.push(c);
      if (links >= a.links) return false;
    }
    return true;
  };
  let ok = true;
  for (let at = 0; ok && at < data.length; at += a.chunkBytes) ok = take(sp.push(data.subarray(at, Math.min(data.length, at + a.chunkBytes))));
  if (ok) take(sp.end());
  return { chunks, links };
}

const STAGES = ['canonicalize', 'keys', 'parse', 'parse+memo', 'packParsed', 'packChunk'] as const;
type Stage = (typeof STAGES)[number];
type Times = Record<Stage, { cpu: number; wall: number }>;

function cpuNs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

/** One pass over every chunk: each sub-stage timed on its own (CPU and wall, ns). */
function pass(chunks: LineChunk[], a: Args, policyOpts: CanonicalPolicyOptions, digest: boolean): { t: Times; digest: string } {
  const policy = resolvePolicy(policyOpts);
  const t = {} as Times;
  for (const s of STAGES) t[s] = { cpu: 0, wall: 0 };
  const time = (s: Stage, f: () => void): void => {
    const c0 = cpuNs();
    const w0 = performance.now();
    f();
    t[s].wall += (performance.now() - w0) * 1e6;
    t[s].cpu += cpuNs() - c0;
  };
  const scratch = new BatchScratch();
  let keys = new Uint32Array(0);
  const parser = new Parser(policy, a.hostBits);
  // One thread's line memo at the engine's default size, starting empty each pass.
  const memoParser = new Parser(policy, a.hostBits, 1 << 20);
  const h = digest ? createHash('sha256') : null;
  const slabs = new SlabPool(4);
  for (const chunk of chunks) {
    let batch!: ReturnType<typeof canonicalizeBatch>;
    time('canonicalize', () => { batch = canonicalizeBatch(chunk, policy, scratch); });
    if (keys.length < 2 * batch.count) keys = new Uint32Array(2 * batch.count);
    time('keys', () => keysOfBatch(batch.bytes, batch.count, batch.ends, batch.hostStarts, batch.hostEnds, a.hostBits, keys));
    let parsed!: ReturnType<Parser['parse']>;
    time('parse', () => { parsed = parser.parse(chunk); });
    time('parse+memo', () => { memoParser.parse(chunk); });
    time('packParsed', () => { const s = slabs.take(parsedSlabBytes(parsed)); packParsed(parsed, s); slabs.give(s); });
    time('packChunk', () => { const s = slabs.take(chunkSlabBytes(chunk)); packChunk(chunk, s); slabs.give(s); });
    if (h !== null) {
      const b = parsed.batch;
      h.update(b.bytes);
      h.update(new Uint8Array(b.ends.buffer, b.ends.byteOffset, 4 * b.count));
      h.update(new Uint8Array(parsed.keys.buffer, parsed.keys.byteOffset, 8 * b.count));
      h.update(new Uint8Array(b.lines.buffer, b.lines.byteOffset, 8 * b.count));
      for (const r of parsed.rejects) h.update(`${r.line}\t${r.reason}\t${r.excerpt.toString('hex')}\n`);
    }
  }
  return { t, digest: h === null ? '' : h.digest('hex').slice(0, 16) };
}

function main(): void {
  const a = parseArgs(process.argv.slice(2));
  const policyOpts = policyOf(a.policy);
  const { chunks, links } = loadChunks(a, resolvePolicy(policyOpts).maxLineBytes);
  let digest = '';
  const best = {} as Times;
  for (const s of STAGES) best[s] = { cpu: Infinity, wall: Infinity };
  for (let r = 0; r < a.repeat + 1; r++) {
    const { t, digest: d } = pass(chunks, a, policyOpts, r === 0);
    if (r === 0) { digest = d; continue; } // warm-up pass; also the digest
    for (const s of STAGES) {
      best[s].cpu = Math.min(best[s].cpu, t[s].cpu);
      best[s].wall = Math.min(best[s].wall, t[s].wall);
    }
  }
  const per = (x: number): number => Math.round(x / links);
  const out = {
    file: a.file, links, chunks: chunks.length, policy: a.policy, hostBits: a.hostBits, repeat: a.repeat, digest,
    nsPerLink: Object.fromEntries(STAGES.map((s) => [s, { cpu: per(best[s].cpu), wall: per(best[s].wall) }])),
  };
  if (a.json) {
    console.log(JSON.stringify(out));
    return;
  }
  console.log(`${links} links, ${chunks.length} chunks, policy ${a.policy}, best of ${a.repeat}; digest ${digest}`);
  console.log('stage          cpu ns/link  wall ns/link');
  for (const s of STAGES) console.log(`${s.padEnd(14)} ${String(out.nsPerLink[s].cpu).padStart(11)}  ${String(out.nsPerLink[s].wall).padStart(12)}`);
  console.log('(parse = canonicalize + keys + reject merge, as a worker runs it; parse+memo = the same behind a 2^20-entry line memo;');
  console.log(' packParsed = copy for transfer back; packChunk = main-thread copy to send)');
}

main();
