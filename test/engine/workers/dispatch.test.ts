import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { AuxLog } from '../../../src/bucket/aux-log.js';
import { resolvePolicy } from '../../../src/canonicalize/index.js';
import { Drum } from '../../../src/engine/drum.js';
import { ParsePool } from '../../../src/engine/workers/parse-pool.js';
import type { DispatchBlock } from '../../../src/engine/workers/dispatch-scan.js';
import { DrumFs } from '../../../src/io/fs.js';
import type { DrumOptions } from '../../../src/options.js';
import { tempDir } from '../../helpers/tmp.js';

const pool = new ParsePool(resolvePolicy({}), 24, 1, 0);
after(() => pool.close());

/** Writes an aux log of these URLs, front-coded as Front.route writes it (each against the one before); returns it flushed to its file. */
function auxOf(dir: string, urls: string[]): AuxLog {
  const aux = new AuxLog(new DrumFs(), join(dir, `aux-${Math.random()}.dat`), 1 << 17);
  const src = Buffer.from(urls.join(''), 'latin1');
  let at = 0;
  let prev = -1;
  for (const u of urls) {
    aux.append(src, at, at + u.length, prev, prev < 0 ? -1 : at);
    prev = at;
    at += u.length;
  }
  aux.flush();
  return aux;
}

/** An aux log of n URLs of host `h`, every one marked new. */
function allNew(h: string, n: number): { urls: string[]; aux: AuxLog; bits: Uint8Array } {
  const urls = Array.from({ length: n }, (_, i) => `http://${h}.example/${i}`);
  const bits = new Uint8Array(new SharedArrayBuffer((n >>> 3) + 1)).fill(0xff);
  return { urls, aux: auxOf(tempDir(), urls), bits };
}

async function scan(aux: AuxLog, bits: Uint8Array, room: number, perFile: number, sizes: { blockUrls?: number }, onBlock?: (b: DispatchBlock) => void) {
  const blocks: string[][] = [];
  const r = await pool.scanAux({ path: aux.path, records: aux.records, newBits: bits, room, urlsPerFile: perFile }, (b) => {
    onBlock?.(b);
    const text = Buffer.from(b.bytes.buffer, 0, b.len).toString('latin1');
    assert.ok(text.endsWith('\n'));
    const lines = text.slice(0, -1).split('\n');
    assert.equal(lines.length, b.n);
    let start = 0;
    for (let i = 0; i < b.n; i++) {
      assert.equal(b.ends[i], start + lines[i]!.length, 'ends[i] is where URL i ends');
      start = b.ends[i]! + 1;
    }
    blocks.push(lines);
  }, sizes);
  return { r, blocks };
}

describe('dispatch through the worker', () => {
  it('hands over exactly the URLs whose bit is set, in order, never one block across a file rotation', async () => {
    const dir = tempDir();
    const url = fc.oneof(fc.webUrl(), fc.constant(`http://long.example/${'x'.repeat(65535 - 20)}`));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(url, fc.boolean()), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 12 }),
        async (recs, blockUrls, perFile, roomPick) => {
          const aux = auxOf(dir, recs.map(([u]) => u));
          const bits = new Uint8Array(new SharedArrayBuffer((recs.length >>> 3) + 1));
          recs.forEach(([, on], i) => { if (on) bits[i >>> 3]! |= 1 << (i & 7); });
          const room = Math.min(roomPick, perFile);
          const { r, blocks } = await scan(aux, bits, room, perFile, { blockUrls });
          const want = recs.filter(([, on]) => on).map(([u]) => u);
          assert.deepEqual(blocks.flat(), want);
          assert.equal(r.newUrls, want.length);
          // File boundaries fall after `room` URLs, then every `perFile`: no block may cross one.
          let done = 0;
          for (const b of blocks) {
            assert.ok(b.length <= blockUrls);
            const left = done < room ? room - done : perFile - ((done - room) % perFile);
            assert.ok(b.length <= left, `a block of ${b.length} crosses a rotation ${left} URLs ahead`);
            done += b.length;
          }
          aux.discard();
        },
      ),
      { seed: 4242, numRuns: 60 },
    );
  });

  it('fails the scan with the block handler\'s error and leaves the worker able to scan again', async () => {
    const { urls, aux, bits } = allNew('e', 50);
    let calls = 0;
    await assert.rejects(scan(aux, bits, 1000, 1000, { blockUrls: 4 }, () => {
      if (++calls === 2) throw new Error('disk full');
    }), /disk full/);
    const again = await scan(aux, bits, 1000, 1000, { blockUrls: 4 });
    assert.deepEqual(again.blocks.flat(), urls);
    aux.discard();
  });

  it('fails a scan of an aux log cut short with DRUM_CORRUPT_FILE naming it, as the main thread\'s own scan does', async () => {
    const { aux, bits } = allNew('f', 200);
    fs.truncateSync(aux.path, fs.statSync(aux.path).size - 30);
    await assert.rejects(scan(aux, bits, 1000, 1000, {}), (e: unknown) => (e as { code?: string; file?: string }).code === 'DRUM_CORRUPT_FILE' && (e as { file?: string }).file === aux.path);
    assert.throws(() => aux.forEachWanted(bits, 1 << 16, () => undefined), { code: 'DRUM_CORRUPT_FILE' });
    aux.discard();
  });
});

describe('dispatch through the worker, when things go wrong', () => {
  it('keeps its blocks when scans fail, so a later scan still completes (no hang after many failures)', { timeout: 20_000 }, async () => {
    const { urls, aux, bits } = allNew('f', 10);
    for (let i = 0; i < 6; i++) {
      // One record more than the log holds: the worker fails mid-scan while holding a block.
      await assert.rejects(pool.scanAux({ path: aux.path, records: 11, newBits: bits, room: 100, urlsPerFile: 100 }, () => undefined), /aux log ends/);
    }
    const ok = await scan(aux, bits, 100, 100, {});
    assert.deepEqual(ok.blocks.flat(), urls);
    aux.discard();
  });

  it('stops the worker soon after the block handler fails, and reports the handler\'s error', async () => {
    const { aux, bits } = allNew('g', 3000);
    let calls = 0;
    await assert.rejects(scan(aux, bits, 10_000, 10_000, { blockUrls: 2 }, () => {
      calls++;
      throw new Error('sink failed');
    }), /sink failed/);
    assert.equal(calls, 1, 'no block is handed over after the failure');
    aux.discard();
  });
});

describe('a round dispatched through the worker', () => {
  function input(dir: string): string {
    const lines: string[] = [];
    for (let i = 0; i < 4000; i++) {
      const k = (i * 7919) % 2600;
      lines.push(i % 97 === 0 ? `mailto:x${i}@example.org` : `http://Host${k % 17}.example/page/${k}?b=2&a=1#f`);
    }
    fs.writeFileSync(join(dir, 'links.txt'), `${lines.join('\n')}\n`);
    return join(dir, 'links.txt');
  }

  async function run(state: string, inp: string, out: string, o: DrumOptions) {
    const d = await Drum.open(state, o);
    try {
      const r = await d.ingest({ inputs: [inp], outDir: out });
      const files: Record<string, string> = {};
      for (const f of fs.readdirSync(out).sort()) if (f !== 'report.json') files[f] = fs.readFileSync(join(out, f), 'utf8');
      return { files, r };
    } finally {
      await d.close();
    }
  }

  it('dispatches an empty round (every line rejected) without touching a log that was never written', async () => {
    const dir = tempDir();
    fs.writeFileSync(join(dir, 'bad.txt'), 'mailto:a@b.example\nmailto:c@d.example\n');
    const r = await run(join(dir, 'state'), join(dir, 'bad.txt'), join(dir, 'out'), { fsync: false, workers: 1, tuning: { workerDispatchMin: 0 } });
    assert.equal(r.r.uniqueUrls, 0);
    assert.equal(r.r.rejectedLines, 2);
  });

  for (const bloom of ['off', 'gate'] as const) {
    it(`writes the same unique files and counts as dispatching on the main thread (bloom ${bloom})`, async () => {
      const dir = tempDir();
      const inp = input(dir);
      // Tiers off (the line memo is per parsing thread): then every count must match too, not only the files.
      // Journal off: every round merges (a journal round dispatches on the main thread).
      const common: DrumOptions = { fsync: false, chunkBytes: 4096, bloom, cacheEntries: 0, recentEntries: 0, lineMemoEntries: 0, bloomBitsPerKey: 2, journalKeys: 0 };
      // Two batches, so the second round meets a store, the Bloom filter and a half-full unique file.
      const ref: Awaited<ReturnType<typeof run>>[] = [], got: Awaited<ReturnType<typeof run>>[] = [];
      for (const [state, list, o] of [['ref', ref, { ...common, workers: 0, tuning: { urlsPerFile: 7, maxBucketEntries: 300 } }],
        ['got', got, { ...common, workers: 1, tuning: { urlsPerFile: 7, maxBucketEntries: 300, workerDispatchMin: 0 } }]] as const) {
        list.push(await run(join(dir, state), inp, join(dir, `${state}-out1`), o));
        fs.appendFileSync(inp, 'http://late.example/1\nhttp://host3.example/page/99999\n');
        list.push(await run(join(dir, state), inp, join(dir, `${state}-out2`), { ...o }));
        fs.writeFileSync(inp, fs.readFileSync(inp, 'utf8').split('\n').slice(0, 4000).join('\n') + '\n');
      }
      for (let i = 0; i < 2; i++) {
        assert.deepEqual(got[i]!.files, ref[i]!.files);
        for (const k of ['linksRead', 'uniqueUrls', 'duplicateUrls', 'rejectedLines'] as const) assert.equal(got[i]!.r[k], ref[i]!.r[k]);
        assert.deepEqual(got[i]!.r.tiers.bloom, ref[i]!.r.tiers.bloom);
      }
      assert.ok(Object.keys(got[0]!.files).length > 100, 'many rotations');
      assert.ok(ref[0]!.r.io.merges > 1, 'several rounds');
      if (bloom === 'gate') assert.ok(got[0]!.r.tiers.bloom.falsePositives > 0, 'a 2-bit filter has false positives to count');
    });
  }
});
