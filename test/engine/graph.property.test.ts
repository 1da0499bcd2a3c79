// drum ingest --graph against a Map model (url -> docID, in order of first
// storage): each accepted TSV row gives (docID(source), docID(target)) in
// input order in graph-NNNNN.bin, the pairs Drum.resolve gives afterwards; a
// source is stored (before its row's target) but never emitted; targets are
// emitted as without --graph. Across graph and plain runs, reopens, small
// merges, several chunks, tiny tiers and a worker.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Drum } from '../../src/engine/drum.js';
import { isDrumError } from '../../src/errors.js';
import type { DrumOptions } from '../../src/options.js';
import { tempDir } from '../helpers/tmp.js';
import { withReopens } from '../helpers/reopen.js';
import { outputLines } from '../helpers/run-output.js';

const POOL = Array.from({ length: 40 }, (_, i) => `http://h${i % 7}.example/p/${Math.floor(i / 7)}${i % 4 === 0 ? '?a=1' : ''}`);
/** Sources: stored URLs' canonical forms, and some that are rejected. */
const BAD_SOURCES = ['', 'mailto:nobody@h1.example', 'rel/path'];
/** Targets: canonical, raw forms the policy folds into them, rejected ones, and '' (the row's source itself). */
const TARGETS = [...POOL, ...POOL.map((u) => u.replace('http://h', 'HTTP://H') + '#f'), 'mailto:nobody@h2.example', ''];
const canonicalOf = (raw: string): string | null => (raw.startsWith('http') || raw.startsWith('HTTP') ? raw.replace('#f', '').replace('HTTP://H', 'http://h') : null);
/** Every input starts with this row (a first row without :// would be read as a header). */
const FIRST = `${POOL[0]}\t${POOL[1]}`;

/** The pairs of a run's graph files, in order. */
export function graphPairs(dir: string): [number, number][] {
  const out: [number, number][] = [];
  for (const f of fs.readdirSync(dir).filter((n) => /^graph-\d{5}\.bin$/.test(n)).sort()) {
    const b = fs.readFileSync(join(dir, f));
    assert.equal(b.length % 16, 0, f);
    for (let at = 0; at < b.length; at += 16) out.push([Number(b.readBigUInt64LE(at)), Number(b.readBigUInt64LE(at + 8))]);
  }
  return out;
}

const config = fc.record({
  cacheEntries: fc.constantFrom(0, 64),
  recentEntries: fc.constantFrom(0, 64),
  lineMemoEntries: fc.constantFrom(0, 1024),
  mergeEvery: fc.option(fc.integer({ min: 3, max: 40 }), { nil: undefined }),
  buckets: fc.constantFrom(1, 8),
  workers: fc.constantFrom(0, 1),
  reopen: fc.boolean(),
});
const row = fc.record({
  src: fc.oneof({ weight: 6, arbitrary: fc.nat({ max: POOL.length - 1 }).map((i) => POOL[i]!) }, { weight: 1, arbitrary: fc.constantFrom(...BAD_SOURCES) }),
  tgt: fc.nat({ max: TARGETS.length - 1 }).map((i) => TARGETS[i]!),
});
const runs = fc.array(fc.record({ rows: fc.array(row, { maxLength: 90, size: 'max' }), graph: fc.boolean() }), { minLength: 1, maxLength: 3 });

describe('ingest --graph against a Map model', () => {
  it('writes each accepted row\'s (source docID, target docID) in input order, stores sources without emitting them, and emits targets as without --graph', async () => {
    await fc.assert(
      fc.asyncProperty(config, runs, async (cfg, rs) => {
        const dir = tempDir();
        const state = join(dir, 'state');
        const opts: DrumOptions = {
          cacheEntries: cfg.cacheEntries, recentEntries: cfg.recentEntries, lineMemoEntries: cfg.lineMemoEntries, workers: cfg.workers,
          buckets: cfg.buckets, fsync: false, chunkBytes: 1024, mergeEvery: cfg.mergeEvery, tuning: { workerDispatchMin: 0 },
        };
        const model = new Map<string, number>();
        const docOf = (u: string): number => {
          if (!model.has(u)) model.set(u, model.size);
          return model.get(u)!;
        };
        await withReopens(state, opts, cfg.reopen, rs, async (d, r, k) => {
          const rows = [{ src: POOL[0]!, tgt: POOL[1]! }, ...r.rows];
          const input = join(dir, `in-${k}.tsv`);
          fs.writeFileSync(input, [FIRST, ...r.rows.map((x) => `${x.src}\t${x.tgt}`)].join('\n') + '\n');
          const fresh: string[] = [];
          const pairs: [number, number][] = [];
          let without = 0;
          for (const x of rows) {
            if (x.src === '' && x.tgt === '') continue; // a line of only a tab is blank: not a row
            const s = canonicalOf(x.src);
            const t = canonicalOf(x.tgt === '' ? x.src : x.tgt);
            if (t === null) {
              without++;
              continue;
            }
            if (r.graph && s !== null) docOf(s);
            if (!model.has(t)) fresh.push(t);
            docOf(t);
            if (s === null) without++;
            else pairs.push([model.get(s)!, model.get(t)!]);
          }
          const out = join(dir, `out-${k}`);
          const report = await d.ingest({ inputs: [input], outDir: out, format: 'tsv', graph: r.graph, force: true });
          assert.deepEqual(outputLines(out, 'unique'), fresh, `run ${k}: new`);
          if (r.graph) {
            assert.deepEqual(graphPairs(out), pairs, `run ${k}: pairs`);
            assert.equal(report.graph?.pairs, pairs.length);
            assert.equal(report.graph?.rowsWithoutPair, without);
            assert.deepEqual(report.graph?.files, fs.readdirSync(out).filter((n) => n.startsWith('graph-')).sort());
          } else {
            assert.equal(report.graph, undefined);
          }
          assert.equal(report.linksRead, report.uniqueUrls + report.duplicateUrls + report.rejectedLines);
        }, async (_, reopen) => {
          const d = await reopen();
          // Every URL's docID as Drum.resolve gives it: the model's, so every pair above is (resolve(source), resolve(target)).
          const ask = join(dir, 'ask.txt');
          fs.writeFileSync(ask, POOL.join('\n') + '\n');
          const got = new Map<string, number | null>();
          await d.resolve({ inputs: [ask], format: 'lines', onResolved: (doc, url) => got.set(url, doc) });
          for (const u of POOL) assert.equal(got.get(u), model.get(u) ?? null, u);
        });
      }),
      { seed: 4242, numRuns: 30, plugins: [fc.interruptAfterTimeLimit(40_000, { failOnInterrupt: true })] },
    );
  });

  it('resumes a stopped run from its last commit: bytes past it are cut, and the graph and unique files equal an uninterrupted run\'s', async () => {
    const dir = tempDir();
    const input = join(dir, 'in.tsv');
    const rows = Array.from({ length: 300 }, (_, i) => `${POOL[(i >> 3) % POOL.length]}\t${POOL[(i * 7) % POOL.length]}`);
    fs.writeFileSync(input, rows.join('\n') + '\n');
    const opts: DrumOptions = { fsync: false, workers: 0, chunkBytes: 1024, mergeEvery: 15 };
    const whole = await Drum.open(join(dir, 'whole'), opts);
    try {
      await whole.ingest({ inputs: [input], outDir: join(dir, 'o-whole'), graph: true });
    } finally {
      await whole.close();
    }
    const out = join(dir, 'o');
    let d = await Drum.open(join(dir, 'stopped'), opts);
    try {
      let commits = 0;
      const stop = (): void => {
        if (++commits === 2) throw new Error('stop');
      };
      await assert.rejects(d.ingest({ inputs: [input], outDir: out, graph: true, onCommit: stop }), /stop/);
      await d.close();
      // As if a crash had written pairs of a round that never committed.
      fs.appendFileSync(join(out, 'graph-00001.bin'), Buffer.alloc(48, 7));
      d = await Drum.open(join(dir, 'stopped'), opts);
      const report = await d.ingest({ inputs: [input], outDir: out, graph: true });
      assert.equal(report.graph?.pairs, rows.length);
    } finally {
      await d.close();
    }
    assert.deepEqual(fs.readFileSync(join(out, 'graph-00001.bin')), fs.readFileSync(join(dir, 'o-whole', 'graph-00001.bin')));
    assert.deepEqual(outputLines(out, 'unique'), outputLines(join(dir, 'o-whole'), 'unique'));
  });

  it('refuses a keys-only store with DRUM_NEEDS_UPGRADE and input that is not TSV with DRUM_BAD_OPTION', async () => {
    const dir = tempDir();
    const input = join(dir, 'in.tsv');
    fs.writeFileSync(input, `${POOL[0]}\t${POOL[1]}\n`);
    const keysOnly = await Drum.open(join(dir, 'keys'), { values: false, fsync: false });
    try {
      await assert.rejects(keysOnly.ingest({ inputs: [input], graph: true }), (e) => isDrumError(e, 'DRUM_NEEDS_UPGRADE'));
    } finally {
      await keysOnly.close();
    }
    const plain = join(dir, 'in.txt');
    fs.writeFileSync(plain, `${POOL[0]}\n${POOL[1]}\n`);
    const d = await Drum.open(join(dir, 'valued'), { fsync: false });
    try {
      await assert.rejects(d.ingest({ inputs: [plain], graph: true }), (e) => isDrumError(e, 'DRUM_BAD_OPTION'));
      await assert.rejects(d.ingest({ inputs: [input], graph: true, format: 'lines' }), (e) => isDrumError(e, 'DRUM_BAD_OPTION'));
    } finally {
      await d.close();
    }
  });
});
