// Tests of the top-n selection over the host table and its pending deltas
// (src/catalog/hosts/top-hosts.ts) against a plain Map model: any table,
// pending counts of either sign (a forget's are negative), any n, and few
// hash buckets, so that hosts share bounds and the floor leaves hosts out.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { bucketBitsFor, topHosts, type EntryScan } from '../../../src/catalog/hosts/top-hosts.js';
import { encodeHostMap } from '../../../src/catalog/hosts/host-delta.js';
import type { HostCount } from '../../../src/catalog/records.js';
import { withCatalog } from '../../helpers/catalog.js';
import { tempDir } from '../../helpers/tmp.js';

/** A scan over (name, count) pairs, names handed over as bytes inside a larger buffer. */
function scanOf(entries: [string, number][]): EntryScan {
  return async (fn) => {
    for (const [h, c] of entries) {
      const b = Buffer.from(`##${h}##`, 'latin1');
      fn(b, 2, b.length - 2, c);
    }
  };
}

/** The model: table plus pending per host, hosts at 0 or below left out, most first, then by name. */
function modelTop(table: Map<string, number>, pending: [string, number][], n: number): HostCount[] {
  const m = new Map(table);
  for (const [h, c] of pending) m.set(h, (m.get(h) ?? 0) + c);
  return [...m].filter(([, c]) => c > 0).map(([host, uniqueUrls]) => ({ host, uniqueUrls }))
    .sort((a, b) => b.uniqueUrls - a.uniqueUrls || (a.host < b.host ? -1 : 1)).slice(0, n);
}

describe('top hosts of the table and its pending deltas', () => {
  it('lists the same hosts as a Map model for any counts, n and bucket count (property)', async () => {
    const host = fc.integer({ min: 0, max: 40 }).map((i) => `h${i}.example`);
    const count = fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 100_000 }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(host, count), { maxLength: 40 }),
        fc.array(fc.tuple(host, fc.oneof(count, count.map((c) => -c))), { maxLength: 60 }),
        fc.integer({ min: 0, max: 45 }),
        fc.integer({ min: 0, max: 5 }),
        async (tableEntries, pending, n, bits) => {
          const table = new Map(tableEntries);
          const sorted = [...table].sort(([a], [b]) => (a < b ? -1 : 1));
          const got = await topHosts({ table: scanOf(sorted), pending: scanOf(pending), pendingEntries: pending.length }, n, bits);
          assert.deepEqual(got, modelTop(table, pending, n));
        },
      ),
      { seed: 2611, numRuns: 600 },
    );
  });

  it('keeps a host whose table count alone is below the floor when its pending count lifts it in', async () => {
    const table = new Map([['a.example', 10], ['b.example', 9], ['c.example', 1]]);
    const pending: [string, number][] = [['c.example', 20], ['d.example', 15], ['a.example', -6]];
    for (const bits of [0, 1, 3, 10]) {
      const got = await topHosts({ table: scanOf([...table]), pending: scanOf(pending), pendingEntries: pending.length }, 2, bits);
      assert.deepEqual(got, [{ host: 'c.example', uniqueUrls: 21 }, { host: 'd.example', uniqueUrls: 15 }]);
    }
  });

  it('sizes the buckets by the pending entries, within 2^10 and 2^20', () => {
    assert.equal(bucketBitsFor(0), 10);
    assert.equal(bucketBitsFor(5000), 13);
    assert.equal(bucketBitsFor(1e9), 20);
  });

  it('counts a forget\'s negative deltas in a catalog\'s top hosts, folded or pending', async () => {
    await withCatalog(tempDir(), async (c) => {
      await c.applyHostCounts('run', 0, new Map([['a.example', 50], ['b.example', 40], ['c.example', 30]]));
      await c.compactHosts();
      await c.applyHostCounts('run', 1, new Map([['c.example', 5]]));
      await c.applyHostCounts('forget', 0, encodeHostMap(new Map([['a.example', -45], ['b.example', -40]])));
      assert.deepEqual(await c.topHosts(2), [{ host: 'c.example', uniqueUrls: 35 }, { host: 'a.example', uniqueUrls: 5 }]);
      await c.compactHosts();
      assert.deepEqual(await c.topHosts(5), [{ host: 'c.example', uniqueUrls: 35 }, { host: 'a.example', uniqueUrls: 5 }]);
    });
  });
});
