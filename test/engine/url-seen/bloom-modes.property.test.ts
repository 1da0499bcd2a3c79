// The store's Bloom file against a plain Set model across runs of mixed
// Bloom modes: each step opens the store with `off`, `gate` or `lossy` and
// ingests a batch, feeds it through checkUpdate, forgets it or compacts the
// store. After every step the manifest names a Bloom file only if it holds
// every key of the key files (its key count is theirs; with the key
// journal, it answers every URL of the Set), a step that rewrote key files
// names one exactly when it ran with a Bloom mode (without one it drops the
// file in the same commit), and every mode emits exactly the URLs the Set
// does not hold: `lossy` never drops a new URL, forgotten ones included. At
// 16 bits per key, a filter of at least 1,024 keys' room holding at most 150
// has a false-positive rate near 1e-11, so a drop would be a filter holding
// a key the store lacks, not chance. Does not cover drum upgrade or repair
// (test/cli/bloom-rewrite-e2e.test.ts, test/engine/jobs/maintain/repair.test.ts).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import fc from 'fast-check';
import { Drum } from '../../../src/engine/drum.js';
import type { BloomMode, DrumOptions } from '../../../src/options.js';
import { readManifest, type ManifestBody } from '../../../src/store/manifest.js';
import { keyFileKeys, unanswered } from '../../helpers/bloom-store.js';
import { checkUpdateAll, ingestAll } from '../../helpers/drum.js';
import { tempDir } from '../../helpers/tmp.js';

// Already-canonical URLs over a few hosts, so the model is a Set of strings.
const POOL = Array.from({ length: 150 }, (_, i) => `http://h${i % 7}.example/p/${Math.floor(i / 7)}`);

const config = fc.record({
  journalKeys: fc.constantFrom(0, 1, 7, 64, 1 << 18),
  buckets: fc.constantFrom(1, 8),
  cacheEntries: fc.constantFrom(0, 64),
  recentEntries: fc.constantFrom(0, 64),
  lineMemoEntries: fc.constantFrom(0, 1 << 20),
});

type Op = 'ingest' | 'checkUpdate' | 'forget' | 'compact';

const steps = fc.array(
  fc.record({
    bloom: fc.constantFrom<BloomMode>('off', 'gate', 'lossy'),
    op: fc.constantFrom<Op>('ingest', 'ingest', 'checkUpdate', 'forget', 'compact'),
    urls: fc.array(fc.nat({ max: POOL.length - 1 }), { maxLength: 120, size: 'max' }),
  }),
  { minLength: 1, maxLength: 8 },
);

/** Runs one step's op on `d` against the model `seen`, which it updates. */
async function runStep(d: Drum, dir: string, k: number, op: Op, urls: string[], seen: Set<string>): Promise<void> {
  if (op === 'compact') {
    assert.equal((await d.compact()).storeUrls, seen.size);
    return;
  }
  if (op === 'forget') {
    const stored = new Set(urls.filter((u) => seen.has(u)));
    const r = await d.forget({ urls, outDir: join(dir, `forget-${k}`) });
    assert.equal(r.forgotten, stored.size);
    for (const u of stored) seen.delete(u);
    return;
  }
  const expected = [...new Set(urls.filter((u) => !seen.has(u)))];
  const got = op === 'ingest' ? await ingestAll(d, dir, `batch-${k}`, urls) : await checkUpdateAll(d, urls);
  assert.deepEqual(got, expected, 'every mode, lossy too, emits exactly the URLs the Set does not hold');
  for (const u of got) seen.add(u);
}

/** The key files a manifest names, to tell whether a step rewrote any. */
const keyFiles = (m: ManifestBody | null): string => JSON.stringify(m?.buckets.flatMap((e) => (e ? [e.file] : [])) ?? []);

describe('the Bloom file across runs of mixed Bloom modes against a Set model', () => {
  it('names a filter only when whole, drops it when a run without a Bloom mode rewrites the key files, and lossy never drops a new URL', async () => {
    await fc.assert(
      fc.asyncProperty(config, steps, async (cfg, ss) => {
        const dir = tempDir();
        const state = join(dir, 'state');
        const opts: DrumOptions = { ...cfg, bloomBitsPerKey: 16, workers: 0, fsync: false, chunkBytes: 1024 };
        const seen = new Set<string>();
        for (const [k, step] of ss.entries()) {
          const before = keyFiles(readManifest(state));
          const d = await Drum.open(state, { ...opts, bloom: step.bloom });
          try {
            await runStep(d, dir, k, step.op, step.urls.map((i) => POOL[i]!), seen);
          } finally {
            await d.close();
          }
          const m = readManifest(state)!;
          assert.equal(m.storeUrls, seen.size);
          if (keyFiles(m) !== before) assert.equal(m.bloom !== null, step.bloom !== 'off', `a ${step.op} with --bloom ${step.bloom} that rewrote key files`);
          if (m.bloom !== null) {
            assert.equal(m.bloom.keys, keyFileKeys(m), 'the Bloom file holds the key files\' keys');
            assert.deepEqual(await unanswered(state, m, seen), [], 'the Bloom file and the journal answer every stored URL');
          }
        }
        const d = await Drum.open(state, opts);
        try {
          const v = await d.verify();
          assert.equal(v.ok, true, JSON.stringify(v.problems));
        } finally {
          await d.close();
        }
      }),
      { seed: 2718, numRuns: 40, endOnFailure: true },
    );
  });
});
