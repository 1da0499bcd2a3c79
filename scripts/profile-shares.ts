// Sums the self time of V8 CPU profiles (`node --cpu-prof`, one .cpuprofile
// per thread) by pipeline stage — split, canonicalize, hash, line memo,
// route, sort/merge, outputs, input SHA-256, the rest — and prints each
// stage's share of the busy samples (idle excluded), with the top functions.
// What docs/performance.md's "Where the CPU goes" table is made from. Reads
// the profiles only; does not run drum. Inlined functions count for their
// caller: profile with --no-turbo-inlining to see small loops (the hashes)
// on their own.
// Profile the module tree, not the bundled CLI (whose chunks name no
// stage): DRUM_UNBUNDLED=1 node --cpu-prof bin/drum ...
// Usage: node dist/scripts/profile-shares.js [--top N] FILE.cpuprofile...

import { readFileSync } from 'node:fs';
import { scriptArgs } from './lib/script-args.js';
import { pathToFileURL } from 'node:url';

/** Stage of a function by its script path (first match wins); the rest is 'other'. */
export const STAGES: readonly (readonly [string, RegExp])[] = [
  ['split', /input\/(split|line-index|read|tsv-row|detect)\.js/],
  ['canonicalize', /canonicalize\/|^wasm:/], // wasm: fast-canonical.wasm, drum's only WebAssembly
  ['hash', /fingerprint\//],
  ['line memo', /tiers\/(line-memo|chunk-set)\.js/],
  ['route', /engine\/url-seen\/front\.js|engine\/core\/drum-core\.js|tiers\/(recent-table|hot-cache|set-assoc|bloom)\.js|bucket\/(pending|spill-file)\.js/],
  ['sort + merge', /bucket\/(radix-sort|aux-log|slice-partition|key-range)\.js|store\/(merge|key-reader|key-writer)\.js|workers\/dispatch/],
  ['outputs + hosts', /engine\/jobs\/ingest\/run-outputs|output\/|engine\/hosts\//],
  ['input SHA-256', /internal\/crypto\/hash/],
];

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

export interface Shares {
  /** Busy microseconds per stage (idle samples left out). */
  stages: Map<string, number>;
  /** Busy microseconds per function, `name file:line`. */
  functions: Map<string, number>;
  busyUs: number;
  idleUs: number;
}

export function stageOf(url: string): string {
  for (const [name, re] of STAGES) if (re.test(url)) return name;
  return 'other';
}

/** Adds one profile's samples (each sample's time is the delta that follows it, as V8 records them). */
export function addProfile(p: CpuProfile, into: Shares): void {
  const byId = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
  for (let i = 0; i < p.samples.length; i++) {
    const cf = byId.get(p.samples[i]!)!;
    const t = p.timeDeltas[i] ?? 0;
    if (cf.functionName === '(idle)') {
      into.idleUs += t;
      continue;
    }
    into.busyUs += t;
    const stage = stageOf(cf.url);
    into.stages.set(stage, (into.stages.get(stage) ?? 0) + t);
    const fn = `${cf.functionName || '(anonymous)'} ${cf.url.replace(/^.*\/(dist|node_modules)\//, '')}:${cf.lineNumber + 1}`;
    into.functions.set(fn, (into.functions.get(fn) ?? 0) + t);
  }
}

export function emptyShares(): Shares {
  return { stages: new Map(), functions: new Map(), busyUs: 0, idleUs: 0 };
}

function table(m: Map<string, number>, busy: number, top: number): string {
  return [...m].sort((a, b) => b[1] - a[1]).slice(0, top)
    .map(([k, t]) => `${((100 * t) / busy).toFixed(1).padStart(5)} %  ${(t / 1e6).toFixed(2).padStart(6)} s  ${k}`).join('\n');
}

async function main(): Promise<void> {
  const { values, positionals } = scriptArgs(import.meta.url, { allowPositionals: true, options: { top: { type: 'string', default: '15' } } });
  if (positionals.length === 0) throw new Error('usage: profile-shares [--top N] FILE.cpuprofile...');
  const s = emptyShares();
  for (const f of positionals) addProfile(JSON.parse(readFileSync(f, 'utf8')) as CpuProfile, s);
  process.stdout.write(`by stage (share of ${(s.busyUs / 1e6).toFixed(2)} s busy; ${(s.idleUs / 1e6).toFixed(2)} s idle left out)\n`);
  process.stdout.write(`${table(s.stages, s.busyUs, 100)}\n\ntop functions (self time)\n${table(s.functions, s.busyUs, Number(values.top))}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
