// Tests of ParsePool with a worker: over many tiny chunks read with reused
// buffers, submitted and released the way the read loop does, every result
// (URLs, keys, repeats, rejects, order) equals parsing the same chunks
// inline with copies; so it does when the caller has some chunks parsed on
// the main thread and scribbles over each chunk once submitted; a worker's
// shared counter says a chunk is parsed before its reply is taken; a
// released result reads as empty; slabs are recycled.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { resolvePolicy } from '../../../src/canonicalize/policy.js';
import { Parser, type ParsedChunk } from '../../../src/engine/pipeline/parse.js';
import { ParsePool, type ParseJob } from '../../../src/engine/workers/parse-pool.js';
import { readInputs } from '../../../src/input/read.js';
import { LineSplitter } from '../../../src/input/split.js';
import { tempDir } from '../../helpers/tmp.js';

const policy = resolvePolicy({ maxLineBytes: 120 });
const TARGETS = [
  'http://a.example/1', 'HTTP://A.example:80/1#top', 'http://a.example/2?b=2&a=1', 'http://b.example', 'mailto:x@y.example',
  'http://bad host.example/', 'page.html', '', '# c', 'http://c.example/caf\u00e9', 'x'.repeat(130), `http://long.example/${'y'.repeat(100)}`,
];

/** Everything the engine reads from a result, as plain values. */
function view(p: ParsedChunk): unknown {
  const b = p.batch;
  const n = b.count;
  return [
    b.bytes.toString('latin1', 0, n === 0 ? 0 : b.ends[n - 1]), [...b.ends.subarray(0, n)], [...b.hostStarts.subarray(0, n)],
    [...b.hostEnds.subarray(0, n)], [...b.lines.subarray(0, n)], [...p.keys.subarray(0, 2 * n)], [...p.repeats.subarray(0, n)],
    p.repeatCount, p.rejects.map((r) => [r.line, r.reason, r.excerpt.toString('latin1')]), p.input, p.endOffset, p.endLine,
  ];
}

/** Reads `path` with reused buffers and parses it on the pool the way readLoop does: a few in flight, each released once read. */
async function viaPool(pool: ParsePool, path: string, chunkBytes: number): Promise<unknown[]> {
  const out: unknown[] = [];
  const inflight: ParseJob[] = [];
  const released: ParsedChunk[] = [];
  const drainOne = async (): Promise<void> => {
    const job = inflight.shift()!;
    const p = job.result ?? (await job.promise!);
    await new Promise((r) => setImmediate(r)); // a slab recycled too early would have been written by now
    out.push(view(p));
    pool.release(p);
    released.push(p);
  };
  for await (const c of readInputs([{ path }], { format: 'lines', maxLineBytes: policy.maxLineBytes, chunkBytes, reuseBuffers: true })) {
    inflight.push(pool.submit(c));
    while (inflight.length > 0 && inflight[0]!.result !== null) await drainOne();
    if (inflight.length >= 3) await drainOne();
  }
  while (inflight.length > 0) await drainOne();
  for (const p of released) assert.ok(p.batch.count === 0 || (p.batch.bytes.length === 0 && p.keys.length === 0), 'a released result reads as empty');
  return out;
}

/** The reference: fresh chunks, parsed inline one by one, each result read at once. */
async function inline(path: string, chunkBytes: number): Promise<unknown[]> {
  const parser = new Parser(policy, 24);
  const out: unknown[] = [];
  for await (const c of readInputs([{ path }], { format: 'lines', maxLineBytes: policy.maxLineBytes, chunkBytes })) out.push(view(parser.parse(c)));
  return out;
}

describe('ParsePool', () => {
  let pool: ParsePool;
  let dir = '';
  before(() => {
    pool = new ParsePool(policy, 24, 1);
    dir = tempDir('drum-pool-');
  });
  after(() => pool.close());

  it('gives the same results as inline parsing over many tiny chunks read with reused buffers (fast-check)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat({ max: TARGETS.length - 1 }), { minLength: 1, maxLength: 400 }), fc.constantFrom(64, 200, 1000),
        async (idx, chunkBytes) => {
          const path = join(dir, `in-${run++}.txt`);
          writeFileSync(path, idx.map((i) => TARGETS[i]).join('\n') + '\n');
          assert.deepEqual(await viaPool(pool, path, chunkBytes), await inline(path, chunkBytes));
        },
      ),
      { seed: 4242, numRuns: 40 },
    );
  });

  it('parses each chunk where it is told, here or on the worker, in order, and lets the caller overwrite each chunk once submit returns (fast-check)', async () => {
    const inlineBefore = pool.inlineChunks;
    let onWorker = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat({ max: TARGETS.length - 1 }), { minLength: 1, maxLength: 300 }), fc.constantFrom(64, 200), fc.integer({ min: 1, max: 6 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }),
        async (idx, chunkBytes, burst, hereCycle) => {
          const text = Buffer.from(idx.map((i) => TARGETS[i]).join('\n') + '\n');
          const split = () => {
            const sp = new LineSplitter({ input: 0, format: 'lines', maxLineBytes: policy.maxLineBytes, chunkBytes });
            return [...sp.push(text), ...sp.end()];
          };
          const parser = new Parser(policy, 24);
          const want = split().map((c) => view(parser.parse(c)));
          const got: unknown[] = [];
          const inflight: ParseJob[] = [];
          const drainOne = async (): Promise<void> => {
            const job = inflight.shift()!;
            const p = job.result ?? (await job.promise!);
            got.push(view(p));
            if (p.onWorker) onWorker++;
            pool.release(p);
          };
          for (const [k, c] of split().entries()) {
            const here = hereCycle[k % hereCycle.length]!;
            const inlineBefore = pool.inlineChunks;
            inflight.push(pool.submit(c, true, true, here));
            // Told here, it is parsed here; else on the worker (once it runs: the first chunks before it starts are parsed here).
            if (here) assert.equal(pool.inlineChunks, inlineBefore + 1);
            else if (pool.running > 0) assert.equal(pool.inlineChunks, inlineBefore);
            // The chunk is the caller's again: wreck it.
            c.buf.fill(0x21);
            for (const a of [c.urlStarts, c.urlEnds, c.baseStarts, c.baseEnds]) a.fill(7);
            c.lines.fill(-1);
            if (inflight.length >= burst) await drainOne();
          }
          while (inflight.length > 0) await drainOne();
          assert.deepEqual(got, want);
        },
      ),
      { seed: 4242, numRuns: 60 },
    );
    assert.ok(pool.inlineChunks > inlineBefore && onWorker > 0, 'both the main thread and the worker parsed chunks');
  });

  it('knows a chunk is parsed on the worker before this thread takes its reply', async () => {
    const sp = new LineSplitter({ input: 0, format: 'lines', maxLineBytes: policy.maxLineBytes, chunkBytes: 1 << 16 });
    const [chunk] = [...sp.push(Buffer.from(TARGETS.join('\n') + '\n')), ...sp.end()];
    pool.warm();
    const job = pool.submit(chunk!, true, true, false);
    assert.equal(job.result, null);
    // Without yielding to the event loop (the reply cannot arrive), wait for the worker's shared counter.
    const until = Date.now() + 10_000;
    while (!pool.isParsed(job) && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    assert.ok(pool.isParsed(job), 'the worker counted the chunk as parsed');
    assert.equal(job.result, null, 'its reply is not taken yet');
    const p = await job.promise!;
    assert.ok(p.onWorker && pool.isParsed(job));
    pool.release(p);
  });

  it('recycles slabs: a long run allocates no more of them than a short one', async () => {
    const path = join(dir, 'long.txt');
    writeFileSync(path, Array.from({ length: 20_000 }, (_, i) => `http://h${i % 97}.example/p/${i}`).join('\n') + '\n');
    const fresh = new ParsePool(policy, 24, 1);
    try {
      const chunks = (await viaPool(fresh, path, 4096)).length;
      const warm = fresh.slabs.allocated;
      assert.ok(chunks > 100 && warm <= 16, `${warm} slabs for ${chunks} chunks`);
      await viaPool(fresh, path, 4096);
      assert.equal(fresh.slabs.allocated, warm, 'a second pass allocates no slab');
    } finally {
      await fresh.close();
    }
  });
});

describe('ParsePool line memos', () => {
  it('lends every thread\'s memo table without a copy and keeps answering from them once they are back', async () => {
    const pool = new ParsePool(policy, 24, 1, 1 << 14); // roomy: no set of 4 overflows with 400 lines
    try {
      const dir = tempDir('drum-pool-memo-');
      const path = join(dir, 'links.txt');
      writeFileSync(path, Array.from({ length: 400 }, (_, i) => `http://m${i % 5}.example/${i}`).join('\n') + '\n');
      const parseAll = async (): Promise<number> => {
        let hits = 0;
        for await (const c of readInputs([{ path }], { format: 'lines', maxLineBytes: policy.maxLineBytes, chunkBytes: 512 })) {
          const p = await pool.parse(c);
          hits += p.lineRepeats;
        }
        return hits;
      };
      assert.equal(await parseAll(), 0, 'nothing remembered yet');
      const lent = await pool.lendMemoTables();
      assert.equal(lent.length, 2);
      assert.ok(lent[1]!.some((x) => x !== 0), 'the worker remembered the lines it parsed');
      const snapshot = lent.map((t) => t.slice());
      pool.returnMemoTables(lent);
      const again = await pool.lendMemoTables();
      assert.deepEqual(again, snapshot, 'the same tables came back');
      pool.returnMemoTables(again);
      assert.equal(await parseAll(), 400, 'every line answered by the worker\'s memo after the round trip');
    } finally {
      await pool.close();
    }
  });
});

describe('ParsePool when its worker dies', () => {
  it('fails what is asked of it afterwards instead of waiting forever', { timeout: 20_000 }, async () => {
    const pool = new ParsePool(policy, 24, 1, 1 << 10);
    try {
      // The worker goes away without an error event (as an out-of-memory kill would look from here).
      const w = (pool as unknown as { threads: { workers: { terminate(): Promise<number> }[] } }).threads.workers[0]!;
      await w.terminate();
      await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(await pool.lendMemoTables(), [], 'no tables to save: the save is skipped');
      await assert.rejects(pool.scanAux({ path: '/nonexistent', records: 1, newBits: new Uint8Array(new SharedArrayBuffer(1)), room: 1, urlsPerFile: 1 }, () => undefined), { code: 'DRUM_INTERNAL' });
    } finally {
      await pool.close();
    }
  });

  it('fails a sort only once no worker can still write the shared arrays, when another worker dies mid-sort', { timeout: 20_000 }, async () => {
    const n = 2_000_000;
    const sh = (): Uint32Array => new Uint32Array(new SharedArrayBuffer(4 * n));
    const [hi, lo, ord, tHi, tLo, tOrd] = [sh(), sh(), sh(), sh(), sh(), sh()];
    let x = 12345;
    for (let i = 0; i < n; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      hi[i] = x;
      lo[i] = Math.imul(x, 2654435761) >>> 0;
      ord[i] = i;
    }
    const pool = new ParsePool(policy, 8, 2, 0);
    try {
      await new Promise((r) => setTimeout(r, 200)); // both workers up
      const sorting = pool.sortKeys({ hi, lo, ord, tHi, tLo, tOrd, seed: null, tSeed: null, n }); // on worker 0
      const workers = (pool as unknown as { threads: { workers: { terminate(): Promise<number> }[] } }).threads.workers;
      setTimeout(() => void workers[1]!.terminate(), 5); // worker 1 exits on its own
      let failed = false;
      try {
        await sorting;
      } catch {
        failed = true;
      }
      const snap = hi.slice(0, 4096);
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(hi.slice(0, 4096), snap, `no write after the sort ${failed ? 'failed' : 'finished'}`);
    } finally {
      await pool.close();
    }
  });
});

