import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  budgetSplit, chunkLinksMax, DEFAULT_LINE_MEMO_ENTRIES, JOURNAL_ROUND_RECORDS, minimumBudgetBytes, planBudget, RUNTIME_RESERVE_BYTES, runtimeFloor,
  SMALLEST_SORT_AREA_BYTES, sortBytesPerEntry,
} from '../../../src/engine/session/budget.js';
import { EVENTS_RAM_BYTES } from '../../../src/engine/core/value-events.js';
import { valueChainRamBytes } from '../../../src/engine/core/values-pass.js';
import { HOST_PARTS_RAM_BYTES } from '../../../src/engine/hosts/host-parts.js';
import { minimumMemoryBytes, resolveOptions } from '../../../src/options.js';
import { LineMemo } from '../../../src/tiers/line-memo.js';
import { JournalTable } from '../../../src/store/journal/journal-table.js';
import { URL_VALUE_WORDS } from '../../../src/engine/url-seen/url-values.js';

const plan = (o: Parameters<typeof resolveOptions>[0]) => planBudget(resolveOptions(o, 2), chunkLinksMax(1 << 20));

describe('planBudget and the line memo', () => {
  it('gives each parsing thread a 2^20-entry line memo under the default 256 MiB budget', () => {
    const p = plan({});
    assert.equal(p.lineMemoEntries, DEFAULT_LINE_MEMO_ENTRIES);
    assert.equal(p.lineMemo, 2 * LineMemo.bytesFor(DEFAULT_LINE_MEMO_ENTRIES));
  });

  it('sizes the line memo down on a small budget instead of refusing the budget', () => {
    // One worker asked for: at so small a budget the default would run none.
    const small = minimumMemoryBytes({ buckets: 4, bloom: 'gate', workers: 1 });
    const p = plan({ memoryBytes: small, buckets: 4, bloom: 'gate', workers: 1 });
    assert.ok(p.lineMemoEntries < DEFAULT_LINE_MEMO_ENTRIES);
    assert.ok(p.lineMemo <= small / 16);
  });

  it('refuses a line memo the user asked for that leaves the buckets too little, with DRUM_BAD_OPTION', () => {
    assert.throws(() => plan({ memoryBytes: minimumMemoryBytes(), lineMemoEntries: 1 << 23 }), { code: 'DRUM_BAD_OPTION' });
    assert.equal(plan({ lineMemoEntries: 0 }).lineMemo, 0);
  });
});

describe('planBudget and a round\'s working set', () => {
  it('plans the host-count parts a round keeps in RAM, and with values the value events\' RAM and the values deltas\' read chunks, out of the sort area alone', () => {
    // Without the key journal, whose table is wider with values.
    const o = resolveOptions({ workers: 1, journalKeys: 0 });
    const keys = planBudget(o, chunkLinksMax(o.chunkBytes), false);
    const valued = planBudget(o, chunkLinksMax(o.chunkBytes), true);
    const valuesRam = EVENTS_RAM_BYTES + valueChainRamBytes(URL_VALUE_WORDS);
    assert.equal(keys.roundWork, HOST_PARTS_RAM_BYTES);
    assert.equal(valued.roundWork, HOST_PARTS_RAM_BYTES + valuesRam);
    // The round's size is the new-URL bitmap's: unchanged by values.
    assert.equal(valued.newBitmap, keys.newBitmap);
    assert.equal(valued.maxRoundEntries, keys.maxRoundEntries);
    assert.equal(valued.sortArea, keys.sortArea - valuesRam);
    assert.equal(budgetSplit(valued).roundWork, valued.roundWork);
  });
});

describe('planBudget at every budget it accepts', () => {
  it('splits the budget into parts that are none negative, sum to at most the budget and leave the sort area its smallest size', () => {
    const options = fc.record({
      workers: fc.integer({ min: 0, max: 3 }),
      bloom: fc.constantFrom('off' as const, 'gate' as const),
      journalKeys: fc.constantFrom(0, 1 << 16, 1 << 18, 1 << 20),
      valued: fc.boolean(),
      // MiB above the minimum this configuration accepts: the tight plans are the first few.
      above: fc.oneof(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: 1024 })),
    });
    fc.assert(fc.property(options, ({ valued, above, ...o }) => {
      const memoryBytes = minimumMemoryBytes(o) + above * 2 ** 20;
      const r = resolveOptions({ ...o, memoryBytes }, 2);
      const p = planBudget(r, chunkLinksMax(r.chunkBytes), valued);
      const parts = budgetSplit(p);
      for (const [name, bytes] of Object.entries(parts)) assert.ok(bytes >= 0, `${name} ${bytes} at ${memoryBytes}`);
      const sum = Object.values(parts).reduce((a, b) => a + b, 0);
      assert.ok(sum <= memoryBytes, `parts ${sum} > budget ${memoryBytes}`);
      assert.ok(p.sortArea >= SMALLEST_SORT_AREA_BYTES, `sort area ${p.sortArea} at ${memoryBytes} (${JSON.stringify(o)}, valued ${valued})`);
    }), { numRuns: 300 });
  });

  it('keeps a sort area at the budget where the round\'s working set used to take all of it', () => {
    // 156 MiB with no worker and values gave the sort area -973 KiB when the 0-worker floor was
    // 24 MiB lower: the same plan is now at 180 MiB.
    const o = resolveOptions({ memoryBytes: 180 * 2 ** 20 }, 2);
    const p = planBudget(o, chunkLinksMax(o.chunkBytes), true);
    assert.ok(p.sortArea >= SMALLEST_SORT_AREA_BYTES, `sort area ${p.sortArea}`);
  });
});

describe('planBudget and the key journal', () => {
  it('takes the key journal\'s table at its fullest out of the budget, and nothing when the journal is off', () => {
    const on = resolveOptions({ workers: 1, journalKeys: 1 << 18 });
    const off = resolveOptions({ workers: 1, journalKeys: 0 });
    const a = planBudget(on, chunkLinksMax(on.chunkBytes), true);
    const b = planBudget(off, chunkLinksMax(off.chunkBytes), true);
    // The table at its fullest, and the key, seed and ordinal of each record a journal round may hold.
    assert.equal(a.journal, JournalTable.bytesFor(1 << 18, URL_VALUE_WORDS) + 12 * JOURNAL_ROUND_RECORDS);
    assert.equal(b.journal, 0);
    assert.ok(a.sortArea + a.newBitmap + a.bucketBuffers < b.sortArea + b.newBitmap + b.bucketBuffers);
    assert.equal(budgetSplit(a).journal, a.journal);
  });
});

describe('planBudget and the runtime', () => {
  it('reserves the whole measured runtime at the default budget and gives the data structures only the rest', () => {
    const p = plan({});
    assert.equal(p.runtimeReserve, RUNTIME_RESERVE_BYTES);
    const data = p.hotCache + p.recentTable + p.journal + p.lineMemo + p.bloom + p.bucketBuffers + p.sortArea + p.newBitmap + p.ioBuffers;
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

  it('opens the minimum budget with every tier configured, the smallest buckets and the whole process floor reserved', () => {
    for (const bloom of ['off', 'gate'] as const) {
      for (const workers of [0, 1, 3]) {
        const total = minimumMemoryBytes({ bloom, workers });
        const p = plan({ memoryBytes: total, bloom, workers });
        assert.ok(p.runtimeReserve >= runtimeFloor(workers), `${p.runtimeReserve} < floor ${runtimeFloor(workers)}`);
        const data = p.hotCache + p.recentTable + p.journal + p.lineMemo + p.bloom + p.bucketBuffers + p.sortArea + p.newBitmap + p.ioBuffers;
        assert.ok(p.runtimeReserve + data <= total, `${p.runtimeReserve + data} > ${total}`);
        assert.ok(p.bucketBuffers > 0 && p.sortEntries >= 1024 && p.maxRoundEntries > 0);
      }
    }
  });

  it('refuses a budget under the process floor with DRUM_BAD_OPTION, naming the minimum in MiB, which grows with the workers', () => {
    for (const workers of [0, 1, 3]) {
      const min = minimumMemoryBytes({ workers });
      assert.equal(min % 2 ** 20, 0, 'whole MiB');
      assert.throws(() => resolveOptions({ memoryBytes: min - 2 ** 20, workers }, 2), (e: Error & { code?: string }) =>
        e.code === 'DRUM_BAD_OPTION' && e.message.includes(`at least ${min / 2 ** 20} MiB`));
      assert.doesNotThrow(() => resolveOptions({ memoryBytes: min, workers }, 2));
    }
    assert.ok(minimumMemoryBytes({ workers: 1 }) - minimumMemoryBytes({ workers: 0 }) >= 16 << 20, 'each worker adds its own floor');
    // Bigger tiers the user asks for raise it; so does an existing store's bucket count (planBudget checks the store's own).
    assert.ok(minimumMemoryBytes({ cacheEntries: 1 << 22 }) > minimumMemoryBytes());
    const o = resolveOptions({ memoryBytes: minimumMemoryBytes({ workers: 0 }), workers: 0 }, 2);
    assert.throws(() => planBudget({ ...o, buckets: 4096, bucketBits: 12 }, chunkLinksMax(1 << 20)), { code: 'DRUM_BAD_OPTION' });
    assert.equal(minimumBudgetBytes({ ...o, buckets: 4096 }) > o.memoryBytes, true);
  });

  it('caps rounds at --merge-every', () => {
    assert.equal(plan({ mergeEvery: 5000 }).maxRoundEntries, 5000);
    assert.ok(plan({}).maxRoundEntries > 1_000_000);
  });
});
