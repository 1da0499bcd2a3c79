import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Drum } from '../../../../src/engine/drum.js';
import { upgradeStore } from '../../../../src/engine/jobs/maintain/upgrade.js';
import type { FsOp } from '../../../../src/io/fs.js';
import type { DrumOptions } from '../../../../src/options.js';
import { readManifest, writeManifest } from '../../../../src/store/manifest.js';
import { DrumFs } from '../../../../src/io/fs.js';
import { segmentPath } from '../../../../src/store/url-log/url-log-format.js';
import { tempDir } from '../../../helpers/tmp.js';
import { withReopens } from '../../../helpers/reopen.js';
import { checkUpdateAll } from '../../../helpers/drum.js';
import { isCrash, SimulatedCrash } from '../../../helpers/crash.js';

const POOL = Array.from({ length: 150 }, (_, i) => `http://h${i % 11}.example/p/${Math.floor(i / 11)}${i % 5 === 0 ? '?q=1' : ''}`);

async function allUrls(d: Drum, n: number): Promise<(string | null)[]> {
  return d.urls(Array.from({ length: n }, (_, i) => i));
}


describe('Drum.urls (the URL log)', () => {
  it('gives every new URL the next docID, batch after batch, across reopen, against a Map model', async () => {
    const config = fc.record({
      workers: fc.constantFrom(0, 1),
      buckets: fc.constantFrom(1, 8),
      maxBucketEntries: fc.option(fc.integer({ min: 4, max: 200 }), { nil: undefined }),
      cacheEntries: fc.constantFrom(0, 64),
      segmentBytes: fc.constantFrom(200, 1 << 20),
      blockTextBytes: fc.constantFrom(40, 65536),
      reopen: fc.boolean(),
    });
    const batches = fc.array(fc.array(fc.nat({ max: POOL.length - 1 }), { maxLength: 120 }), { minLength: 1, maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(config, batches, async (cfg, bs) => {
        const dir = tempDir();
        const opts: DrumOptions = {
          workers: cfg.workers, buckets: cfg.buckets, cacheEntries: cfg.cacheEntries, lineMemoEntries: 64, fsync: false, chunkBytes: 1024,
          tuning: {
            maxBucketEntries: cfg.maxBucketEntries, workerDispatchMin: 0,
            urlLog: { segmentBytes: cfg.segmentBytes, blockTextBytes: cfg.blockTextBytes },
          },
        };
        const model = new Map<string, number>();
        await withReopens(dir, opts, cfg.reopen, bs, async (d, b) => {
          for (const u of await checkUpdateAll(d, b.map((i) => POOL[i]!))) {
            assert.equal(model.has(u), false);
            model.set(u, model.size);
          }
          const byDoc = [...model.keys()];
          assert.deepEqual(await allUrls(d, model.size + 2), [...byDoc, null, null]);
        }, async (d) => {
          await d.endRun();
          assert.equal((await d.verify()).ok, true);
        });
        // A read-only open sees the same log.
        const r = await Drum.open(dir, { readOnly: true, workers: 0 });
        try {
          const ids = [...model.values()].reverse();
          assert.deepEqual(await r.urls(ids), ids.map((i) => [...model.keys()][i]));
        } finally {
          await r.close();
        }
      }),
      { numRuns: 12 },
    );
  });

  it('starts the log of a store written before it existed at the keys it held: those docIDs have no text', async () => {
    const dir = tempDir();
    const opts: DrumOptions = { workers: 0, fsync: false };
    let d = await Drum.open(dir, opts);
    await checkUpdateAll(d, ['http://a.example/1', 'http://a.example/2']);
    await d.close();
    // The manifest as a drum without the URL log wrote it.
    const body = readManifest(dir)!;
    delete body.urlLog;
    fs.rmSync(join(dir, 'urls'), { recursive: true, force: true });
    writeManifest(new DrumFs(), dir, body, false);
    d = await Drum.open(dir, opts);
    try {
      assert.deepEqual(await d.urls([0, 1]), [null, null]);
      assert.equal((await d.verify()).ok, true);
      await checkUpdateAll(d, ['http://a.example/2', 'http://b.example/3']);
      await d.endRun();
      assert.deepEqual(readManifest(dir)!.urlLog, { ...readManifest(dir)!.urlLog!, base: 2, docs: 1 });
      assert.deepEqual(await d.urls([0, 1, 2, 3]), [null, null, 'http://b.example/3', null]);
      assert.equal((await d.verify()).ok, true);
    } finally {
      await d.close();
    }
  });

  it('after a crash at any file operation and a rerun, the log holds exactly the uninterrupted run\'s new URLs', async () => {
    const dir = tempDir();
    const lines = Array.from({ length: 1200 }, (_, i) => `http://Host${(i * 31) % 7}.example/page/${(i * 7919) % 500}`);
    const input = join(dir, 'links.txt');
    fs.writeFileSync(input, `${lines.join('\n')}\n`);
    const base: DrumOptions = { workers: 0, fsync: false, chunkBytes: 2048, tuning: { maxBucketEntries: 40, urlLog: { segmentBytes: 600, blockTextBytes: 100 } } };
    const run = async (state: string, opts: DrumOptions): Promise<void> => {
      const d = await Drum.open(state, opts);
      try {
        await d.ingest({ inputs: [input], outDir: join(state, 'out') });
      } finally {
        await d.close();
      }
    };
    let ops = 0;
    await run(join(dir, 'ref'), { ...base, faultHook: () => void ops++ });
    const expected = fs.readFileSync(join(dir, 'ref', 'out', 'unique-00001.txt'), 'utf8').split('\n').filter((l) => l !== '');
    const points = new Set<number>();
    for (let k = 1; k < ops; k += Math.max(1, Math.floor(ops / 9))) points.add(k);
    for (const k of points) {
      const state = join(dir, `s${k}`);
      let n = 0;
      const crashAt = (op: FsOp): void => {
        if (++n === k) throw new SimulatedCrash(`crash before ${op} #${k}`);
      };
      await assert.rejects(run(state, { ...base, faultHook: crashAt }), isCrash);
      // The reader sees only what the manifest committed, however much the crashed commit wrote.
      const m = readManifest(state);
      if (m?.urlLog !== undefined) {
        const r = await Drum.open(state, { readOnly: true, workers: 0 });
        try {
          assert.deepEqual(await allUrls(r, m.urlLog.docs), expected.slice(0, m.urlLog.docs), `crash at op ${k}`);
        } finally {
          await r.close();
        }
      }
      await run(state, base);
      const d = await Drum.open(state, { ...base, readOnly: true });
      try {
        assert.equal((await d.verify()).ok, true, `crash at op ${k}`);
        assert.deepEqual(await allUrls(d, expected.length + 1), [...expected, null], `crash at op ${k}`);
      } finally {
        await d.close();
      }
    }
  });

  it('keeps no URL log in a keys-only store; after an upgrade, the log starts at the docIDs the upgrade handed out', async () => {
    const dir = tempDir();
    let d = await Drum.open(dir, { workers: 0, fsync: false, values: false });
    await checkUpdateAll(d, ['http://a.example/1', 'http://a.example/2']);
    await d.close();
    assert.equal(readManifest(dir)!.urlLog, undefined);
    assert.equal(fs.existsSync(join(dir, 'urls')), false);
    assert.equal((await upgradeStore(dir, { workers: 0, fsync: false })).docIDs, 2);
    d = await Drum.open(dir, { workers: 0, fsync: false });
    try {
      await checkUpdateAll(d, ['http://a.example/1', 'http://b.example/3']);
      await d.endRun();
      // The upgrade gave the stored URLs docIDs 0 and 1 in key order: their text is not in the log.
      assert.deepEqual(await d.urls([0, 1, 2]), [null, null, 'http://b.example/3']);
      assert.equal((await d.verify()).ok, true);
    } finally {
      await d.close();
    }
  });

  it('verify reports a damaged URL log', async () => {
    const dir = tempDir();
    const d = await Drum.open(dir, { workers: 0, fsync: false });
    await checkUpdateAll(d, POOL);
    await d.close();
    const f = segmentPath(dir, 0);
    const b = fs.readFileSync(f);
    b[100] ^= 0x40;
    fs.writeFileSync(f, b);
    const r = await Drum.open(dir, { readOnly: true, workers: 0 });
    try {
      const v = await r.verify();
      assert.equal(v.ok, false);
      assert.deepEqual(v.problems.map((p) => [p.code, p.file]), [['DRUM_CORRUPT_FILE', f]]);
    } finally {
      await r.close();
    }
  });
});
