// Tests of compaction (Drum.compact, `drum compact`): the key journal goes
// into the key files with every URL and docID kept, the values deltas into
// one values file per bucket with every value kept, the pending host counts
// into the host table with every count kept, a compact store is left byte
// for byte as it was, a damaged store is refused with nothing changed, a
// reader cannot compact, and an OS error at any file
// operation leaves a sound store holding every URL.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Catalog, DELTAS_BEFORE_FOLD } from '../../../../src/catalog/catalog.js';
import { Drum } from '../../../../src/engine/drum.js';
import { isDrumError } from '../../../../src/errors.js';
import type { DrumOptions } from '../../../../src/options.js';
import { readManifest } from '../../../../src/store/manifest.js';
import { flipByte } from '../../../helpers/damage.js';
import { tempDir } from '../../../helpers/tmp.js';
import { withDrum } from '../../../helpers/drum.js';
import { readUrlValues } from '../../../helpers/values.js';

const O: DrumOptions = { workers: 0, fsync: false, chunkBytes: 4096 };
const urls = (from: number, n: number, hosts = 7): string[] => Array.from({ length: n }, (_, i) => `http://h${(from + i) % hosts}.example/p/${from + i}`);

/** The 200 URLs of smallBatches over `hosts` hosts, as a file beside the state directory. */
function listFile(state: string, hosts: number): string {
  const p = `${state}-urls.txt`;
  fs.writeFileSync(p, urls(0, 200, hosts).map((u) => `${u}\n`).join(''));
  return p;
}

/** The host table as a reader sees it: every host's count, and the deltas not folded yet. */
async function hostCounts(state: string): Promise<{ counts: Map<string, number>; pending: number }> {
  const c = await Catalog.open(state, { readOnly: true });
  try {
    const counts = new Map<string, number>();
    for await (const h of c.allHosts()) counts.set(h.host, h.uniqueUrls);
    return { counts, pending: await c.pendingDeltas() };
  } finally {
    await c.close();
  }
}

/** Five small batches through one open store: journal rounds, one host delta each (`hosts` hosts: one key file each). */
async function smallBatches(state: string, hosts = 7): Promise<Map<string, number>> {
  const docIds = new Map<string, number>();
  await withDrum(state, O, async (d) => {
    for (let b = 0; b < 5; b++) {
      await d.add(urls(b * 40, 40, hosts));
      await d.endRun();
    }
    await d.resolve({ inputs: [listFile(state, hosts)], onResolved: (id, u) => void docIds.set(u, id!) });
    assert.equal(docIds.size, 200);
  });
  return docIds;
}

/** Options of a store whose rounds all merge into 4 buckets (no key journal). */
const K: DrumOptions = { ...O, journalKeys: 0, buckets: 4 };

/** 2,000 URLs, then 500 more: each of the 4 buckets has a values file and one delta. */
async function chainedStore(state: string): Promise<void> {
  await withDrum(state, K, async (d) => {
    await d.add(urls(0, 2000));
    await d.add(urls(2000, 500));
  });
}

describe('compact', () => {
  it('merges the key journal into the key files, keeping every URL with its docID', async () => {
    const state = join(tempDir(), 'state');
    const docIds = await smallBatches(state);
    assert.equal(readManifest(state)!.journal?.keys, 200);
    const r = await withDrum(state, O, (d) => d.compact());
    assert.equal(r.journalKeys, 200);
    assert.equal(r.storeUrls, 200);
    const m = readManifest(state)!;
    assert.equal(m.journal, undefined);
    assert.equal(m.buckets.reduce((a, e) => a + (e?.keys ?? 0), 0), 200);
    assert.deepEqual(fs.readdirSync(join(state, 'store')).filter((f) => f.endsWith('.jnl')), []);
    await withDrum(state, { ...O, readOnly: true }, async (d) => {
      assert.equal((await d.verify()).ok, true);
      const after = new Map<string, number>();
      await d.resolve({ inputs: [listFile(state, 7)], onResolved: (id, u) => void after.set(u, id!) });
      assert.deepEqual(after, docIds);
    });
    await withDrum(state, O, async (d) => assert.deepEqual((await d.add(urls(0, 200))).newUrls, []));
  });

  it('folds every bucket\'s values deltas into one values file, keeping every docID', async () => {
    const state = join(tempDir(), 'state');
    await chainedStore(state);
    const chains = (): number => readManifest(state)!.buckets.reduce((a, e) => a + (e?.values?.deltas?.length ?? 0), 0);
    assert.equal(chains(), 4, 'the second batch left a delta in each bucket');
    const before = readUrlValues(state);
    const r = await withDrum(state, K, (d) => d.compact());
    assert.equal(r.valueDeltas, 4);
    assert.equal(chains(), 0);
    assert.equal(readManifest(state)!.formatVersion, 1);
    assert.deepEqual(fs.readdirSync(join(state, 'store')).filter((f) => f.endsWith('.vdel')), []);
    assert.deepEqual(readUrlValues(state), before);
    await withDrum(state, { ...K, readOnly: true }, async (d) => assert.equal((await d.verify()).ok, true));
    assert.equal((await withDrum(state, K, (d) => d.compact())).valueDeltas, 0, 'a second compaction finds none');
  });

  it('reports the values deltas the store named, none of its own: merging the key journal writes its buckets\' values whole', async () => {
    const chains = (state: string): number => readManifest(state)!.buckets.reduce((a, e) => a + (e?.values?.deltas?.length ?? 0), 0);
    const docIds = async (state: string): Promise<Map<string, number | null>> => {
      const m = new Map<string, number | null>();
      const f = `${state}-all.txt`;
      fs.writeFileSync(f, urls(0, 2600).map((u) => `${u}\n`).join(''));
      await withDrum(state, { ...K, readOnly: true }, (d) => d.resolve({ inputs: [f], onResolved: (id, u) => void m.set(u, id) }));
      return m;
    };
    // Values files and no delta, then 100 URLs in the key journal; and the same with a delta in each bucket first.
    for (const [chained, named] of [[false, 0], [true, 4]] as const) {
      const state = join(tempDir(), 'state');
      if (chained) await chainedStore(state);
      else await withDrum(state, K, (d) => d.add(urls(0, 2500)));
      await withDrum(state, { ...K, journalKeys: 1000 }, (d) => d.add(urls(2500, 100)));
      assert.equal(readManifest(state)!.journal?.keys, 100);
      assert.equal(chains(state), named);
      const before = await docIds(state);
      const r = await withDrum(state, K, (d) => d.compact());
      assert.deepEqual([r.journalKeys, r.valueDeltas, chains(state)], [100, named, 0]);
      assert.deepEqual(await docIds(state), before);
    }
  });

  it('folds the pending host counts into the host table, every count kept', async () => {
    const state = join(tempDir(), 'state');
    await smallBatches(state);
    const before = await hostCounts(state);
    assert.ok(before.pending > 0);
    const r = await withDrum(state, O, (d) => d.compact());
    assert.equal(r.hostDeltas, before.pending);
    const after = await hostCounts(state);
    assert.equal(after.pending, 0);
    assert.deepEqual(after.counts, before.counts);
    assert.equal([...after.counts.values()].reduce((a, b) => a + b, 0), 200);
  });

  it('counts the deltas its own open folded: a store with DELTAS_BEFORE_FOLD pending is not reported already compact', async () => {
    const state = join(tempDir(), 'state');
    await withDrum(state, O, async (d) => {
      for (let b = 0; b < DELTAS_BEFORE_FOLD; b++) {
        await d.add([`http://h${b}.example/`]);
        await d.endRun();
      }
    });
    assert.equal((await hostCounts(state)).pending, DELTAS_BEFORE_FOLD);
    const r = await withDrum(state, O, (d) => d.compact());
    assert.equal(r.hostDeltas, DELTAS_BEFORE_FOLD, 'the open folded them for this compaction');
    assert.equal((await hostCounts(state)).pending, 0);
    assert.equal((await withDrum(state, O, (d) => d.compact())).hostDeltas, 0, 'a second compaction finds nothing');
  });

  it('does not report the open\'s fold when another job came first', async () => {
    const state = join(tempDir(), 'state');
    const addOne = async (d: Drum, u: string): Promise<void> => {
      await d.add([u]);
      await d.endRun();
    };
    await withDrum(state, O, async (d) => {
      for (let b = 0; b < DELTAS_BEFORE_FOLD; b++) await addOne(d, `http://h${b}.example/`);
    });
    const r = await withDrum(state, O, async (d) => {
      await addOne(d, 'http://after-open.example/');
      return d.compact();
    });
    assert.equal(r.hostDeltas, 1, 'only the delta the add left; the open folded the others before it');
  });

  it('leaves a compact store byte for byte as it was', async () => {
    const state = join(tempDir(), 'state');
    await smallBatches(state);
    await withDrum(state, O, (d) => d.compact());
    const manifest = fs.readFileSync(join(state, 'MANIFEST'));
    const files = fs.readdirSync(join(state, 'store')).sort();
    const r = await withDrum(state, O, (d) => d.compact());
    assert.deepEqual({ journalKeys: r.journalKeys, hostDeltas: r.hostDeltas }, { journalKeys: 0, hostDeltas: 0 });
    assert.deepEqual(fs.readFileSync(join(state, 'MANIFEST')), manifest);
    assert.deepEqual(fs.readdirSync(join(state, 'store')).sort(), files);
  });

  it('refuses a store with a damaged key file before merging the journal, changing nothing', async () => {
    const state = join(tempDir(), 'state');
    await withDrum(state, { ...O, journalKeys: 0 }, (d) => d.add(urls(0, 200))); // key files
    await withDrum(state, O, (d) => d.add(urls(200, 20))); // and a journal
    const m = readManifest(state)!;
    assert.equal(m.journal?.keys, 20);
    const victim = join(state, m.buckets.find((e) => e)!.file);
    flipByte(victim, fs.statSync(victim).size - 20);
    const before = fs.readFileSync(join(state, 'MANIFEST'));
    await assert.rejects(withDrum(state, O, (d) => d.compact()), (e) => isDrumError(e, 'DRUM_CORRUPT_FILE') && e.file === victim);
    assert.deepEqual(fs.readFileSync(join(state, 'MANIFEST')), before);
  });

  it('refuses a read-only open with DRUM_BAD_OPTION', async () => {
    const state = join(tempDir(), 'state');
    await smallBatches(state);
    await withDrum(state, { ...O, readOnly: true }, async (d) => {
      await assert.rejects(d.compact(), (e) => isDrumError(e, 'DRUM_BAD_OPTION'));
    });
  });

  it('leaves a sound store holding every URL when an OS error hits any file operation of the compaction', async () => {
    const base = join(tempDir(), 'state');
    await smallBatches(base, 1); // one host: one key file, so the sweep stays short
    // And two values deltas after that key file, for the values fold to meet the faults too.
    await withDrum(base, { ...O, journalKeys: 0 }, (d) => d.add(urls(1000, 60, 1)));
    await withDrum(base, { ...O, journalKeys: 0 }, (d) => d.add(urls(2000, 30, 1)));
    assert.equal(readManifest(base)!.buckets.find((e) => e)!.values!.deltas?.length, 2);
    // The host counts folded first: their fold runs in a child the hook does not reach.
    const c = await Catalog.open(base, { sync: false });
    await c.compactHosts();
    await c.close();
    for (let at = 1; ; at++) {
      const state = join(tempDir(), 'state');
      fs.cpSync(base, state, { recursive: true });
      let ops = 0;
      let armed = false;
      let failed = false;
      const hook = (): void => {
        if (armed && ++ops === at) {
          failed = true;
          throw Object.assign(new Error('injected EIO'), { code: 'EIO' });
        }
      };
      await withDrum(state, { ...O, faultHook: hook } as DrumOptions, (d) => {
        armed = true; // from the compaction on, not the open
        return d.compact();
      }).catch((e) => {
        if (!isDrumError(e)) throw e;
      });
      await withDrum(state, O, async (d) => {
        assert.equal((await d.verify()).ok, true, `fault at op ${at}`);
        assert.equal((await d.stats()).storeUrls, 290, `fault at op ${at}`);
        assert.deepEqual((await d.add([...urls(0, 200, 1), ...urls(1000, 60, 1), ...urls(2000, 30, 1)])).newUrls, [], `fault at op ${at}`);
      });
      if (!failed) break;
    }
  });

  it('closes the values it was reading when it cannot create a bucket\'s new values file', async () => {
    const state = join(tempDir(), 'state');
    await chainedStore(state);
    const openFds = (): number => fs.readdirSync('/proc/self/fd').length;
    const before = openFds();
    const hook = (op: string, path: string): void => {
      if (op === 'open-write' && path.endsWith('.vals.tmp')) throw Object.assign(new Error('injected ENOSPC'), { code: 'ENOSPC' });
    };
    await assert.rejects(withDrum(state, { ...K, faultHook: hook } as DrumOptions, (d) => d.compact()), (e) => isDrumError(e, 'DRUM_IO'));
    assert.equal(openFds(), before, 'no descriptor of the chain it read is left open');
    assert.equal(readManifest(state)!.buckets.filter((e) => (e?.values?.deltas?.length ?? 0) > 0).length, 4, 'the chains are as they were');
  });
});
