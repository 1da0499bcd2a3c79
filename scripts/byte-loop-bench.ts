// What per-byte work costs in JavaScript on this machine: the floor under
// drum's parse stage. Times, over every line of a link file, a native
// newline search (Buffer.indexOf), a JS scan for newlines, a JS byte copy
// between typed arrays, a Buffer.copy per line, and the canonicalizer's byte
// fast path (fastCanonical), and prints ns per byte and per line (best of
// R passes). Single thread; measures only, asserts nothing.
// Usage (after `tsc -p .`): node dist/scripts/byte-loop-bench.js FILE [--repeat R]

import { readFileSync } from 'node:fs';
import { scriptArgs } from './lib/script-args.js';
import { compile } from '../src/canonicalize/compiled.js';
import { fastCanonical } from '../src/canonicalize/fast.js';
import { resolvePolicy } from '../src/canonicalize/policy.js';

const { values, positionals } = scriptArgs(import.meta.url, { allowPositionals: true, options: { repeat: { type: 'string', default: '5' } } });
const file = positionals[0];
if (file === undefined) throw new Error('usage: byte-loop-bench.js FILE [--repeat R]');
const repeat = Math.max(1, Number(values.repeat) || 5);
const src = readFileSync(file);
const a = new Uint8Array(src.buffer, src.byteOffset, src.length);
const starts: number[] = [];
const ends: number[] = [];
for (let p = 0; p < src.length;) {
  const nl = src.indexOf(10, p);
  if (nl < 0) break;
  starts.push(p);
  ends.push(nl);
  p = nl + 1;
}
const S = Uint32Array.from(starts);
const E = Uint32Array.from(ends);
const n = S.length;
const outBuf = Buffer.allocUnsafe(2 * src.length + 64);
const out = new Uint8Array(outBuf.buffer, outBuf.byteOffset, outBuf.length);
const policy = compile(resolvePolicy({}));
const hs = new Uint32Array(1);
const he = new Uint32Array(1);

// Loops over arrays passed in as parameters, as the engine's are (module-level bindings would be slower).
function countNewlines(b: Uint8Array): number {
  let c = 0;
  for (let i = 0; i < b.length; i++) if (b[i] === 10) c++;
  return c;
}

function copyLines(from: Uint8Array, to: Uint8Array, st: Uint32Array, en: Uint32Array, lines: number): number {
  let o = 0;
  for (let i = 0; i < lines; i++) {
    const e = en[i]!;
    for (let j = st[i]!; j < e; j++) to[o++] = from[j]!;
  }
  return o;
}

const loops: Record<string, () => number> = {
  'Buffer.indexOf(10) per line': () => {
    let c = 0;
    for (let p = 0; ; c++) {
      const nl = src.indexOf(10, p);
      if (nl < 0) return c;
      p = nl + 1;
    }
  },
  'JS scan for \\n': () => countNewlines(a),
  'JS byte copy per line': () => copyLines(a, out, S, E, n),
  'Buffer.copy per line': () => {
    let o = 0;
    for (let i = 0; i < n; i++) o += src.copy(outBuf, o, S[i]!, E[i]!);
    return o;
  },
  'fastCanonical per line': () => {
    let o = 0;
    let declined = 0;
    for (let i = 0; i < n; i++) {
      const r = fastCanonical(a, S[i]!, E[i]!, out, o, policy, hs, he, 0);
      if (r < 0) declined++;
      else o = r > src.length ? 0 : r;
    }
    return declined;
  },
};

console.log(`${n} lines, ${src.length} bytes (${(src.length / n).toFixed(1)} a line), best of ${repeat}`);
for (const [name, f] of Object.entries(loops)) {
  let best = Infinity;
  let result = 0;
  for (let r = 0; r < repeat; r++) {
    const t = process.hrtime.bigint();
    result = f();
    best = Math.min(best, Number(process.hrtime.bigint() - t));
  }
  console.log(`${name.padEnd(30)} ${(best / src.length).toFixed(2).padStart(6)} ns/byte ${(best / n).toFixed(1).padStart(7)} ns/line  (${result})`);
}
