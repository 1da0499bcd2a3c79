import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chunkLinksMax, DEFAULT_LINE_MEMO_ENTRIES, planBudget, RUNTIME_RESERVE_BYTES, sortBytesPerEntry } from '../../../src/engine/core/budget.js';
import { resolveOptions } from '../../../src/options.js';
import { LineMemo } from '../../../src/tiers/line-memo.js';

const plan = (o: Parameters<typeof resolveOptions>[0]) => planBudget(resolveOptions(o, 2), chunkLinksMax(1 << 20));

describe('planBudget and the line memo', () => {
  it('gives each parsing thread a 2^20-entry line memo under the default 256 MiB budget', () => {
    const p = plan({});
    assert.equal(p.lineMemoEntries, DEFAULT_LINE_MEMO_ENTRIES);
    assert.equal(p.lineMemo, 2 * LineMemo.bytesFor(DEFAULT_LINE_MEMO_ENTRIES));
  });

  it('sizes the line memo down on a small budget instead of refusing the budget', () => {
    const p = plan({ memoryBytes: 48 << 20, buckets: 4, bloom: 'gate' });
    assert.ok(p.lineMemoEntries < DEFAULT_LINE_MEMO_ENTRIES);
    assert.ok(p.lineMemo <= (48 << 20) / 16);
  });

  it('refuses a line memo the user asked for that leaves the buckets too little, with DRUM_BAD_OPTION', () => {
    assert.throws(() => plan({ memoryBytes: 48 << 20, lineMemoEntries: 1 << 22 }), { code: 'DRUM_BAD_OPTION' });
    assert.equal(plan({ lineMemoEntries: 0 }).lineMemo, 0);
  });
});

describe('planBudget and the runtime', () => {
  it('reserves the whole measured runtime at the default budget and gives the data structures only the rest', () => {
    const p = plan({});
    assert.equal(p.runtimeReserve, RUNTIME_RESERVE_BYTES);
    const data = p.hotCache + p.recentTable + p.lineMemo + p.bloom + p.bucketBuffers + p.sortArea + p.newBitmap + p.ioBuffers;
    assert.ok(p.runtimeReserve + data <= p.totalBytes, `${p.runtimeReserve + data} > ${p.totalBytes}`);
    assert.equal(p.sortEntries, Math.floor(p.sortArea / sortBytesPerEntry(1)));
    assert.equal(p.maxBucketEntries, Number.POSITIVE_INFINITY, 'bucket size never forces a merge by default');
  });

  it('gives one sort slot the whole sort area when there is no worker to sort the other', () => {
    const one = plan({ workers: 0 });
    const two = plan({ workers: 1 });
    assert.equal(one.sortEntries, Math.floor(one.sortArea / 24));
    assert.equal(two.sortEntries, Math.floor(two.sortArea / 36));
  });

  it('still opens budgets too small for the runtime, with every tier configured and the smallest buckets', () => {
    for (const bloom of ['off', 'gate'] as const) {
      const p = plan({ memoryBytes: 48 << 20, bloom });
      assert.ok(p.runtimeReserve < RUNTIME_RESERVE_BYTES);
      assert.ok(p.bucketBuffers > 0 && p.sortEntries >= 1024);
    }
  });

  it('caps rounds at --merge-every', () => {
    assert.equal(plan({ mergeEvery: 5000 }).maxRoundEntries, 5000);
    assert.ok(plan({}).maxRoundEntries > 1_000_000);
  });
});
