// The pipelined bucket phase of a merge round (src/engine/core/sort-stage.ts):
// what it leaves behind when the main thread's merge fails while the worker
// is sorting the next unit in shared memory; and that the names of the files
// it wrote are durable (their directory fsynced after the renames) before
// it returns.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PendingBuckets } from '../../../src/bucket/pending.js';
import { resolvePolicy } from '../../../src/canonicalize/policy.js';
import { ParsePool } from '../../../src/engine/workers/parse-pool.js';
import { mergeBuckets } from '../../../src/engine/core/sort-stage.js';
import { SortArea } from '../../../src/engine/core/sort-area.js';
import { DrumFs } from '../../../src/io/fs.js';
import { newRunCounters } from '../../../src/stats/counters.js';
import { tempDir } from '../../helpers/tmp.js';

describe('mergeBuckets', () => {
  it('waits for the worker\'s sort before it reports a failed merge, and reports the error that stopped it', async () => {
    const dir = tempDir();
    const eio = (): Error => Object.assign(new Error('EIO (injected)'), { code: 'EIO' });
    // Bucket 0's key file cannot be written, nor its tmp file removed afterwards.
    const dfs = new DrumFs(undefined, (op, path) => {
      if (path.endsWith('k0.tmp') && (op === 'write' || op === 'unlink')) throw eio();
    });
    const n = 1_000_000;
    const pending = new PendingBuckets(dfs, dir, 1, n + 16);
    let o = 0;
    for (let i = 0; i < 1000; i++) pending.add(i, i, o++); // bucket 0: small, merged first
    let x = 7;
    for (let i = 0; i < n; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      pending.add((x | 0x80000000) >>> 0, Math.imul(x, 2654435761) >>> 0, o++); // bucket 1: sorted on the worker meanwhile
    }
    const pool = new ParsePool(resolvePolicy({}), 8, 1, 0);
    const area = new SortArea(n + 16);
    try {
      await assert.rejects(
        mergeBuckets({
          dfs, pending, write: true, fsync: false, counters: newRunCounters(), newBits: new Uint8Array((o >>> 3) + 1), onHit: () => undefined, keySink: null, worker: pool,
          files: { openReader: () => null, outputPath: (b) => join(dir, `k${b}`), keysIn: () => 0 },
        }, area),
        (e: Error & { code?: string }) => e.code === 'DRUM_IO' && /cannot write/.test(e.message),
      );
      // Nothing writes into the slots any more: the worker's sort of bucket 1 was over before the rejection.
      const slot = area.slots[1]!.hi;
      const before = slot.slice(0, 4096);
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(slot.slice(0, 4096), before);
    } finally {
      await pool.close();
    }
  });

  it('fsyncs the directory the new key files were renamed into, after the renames, before it returns', async () => {
    const dir = tempDir();
    const ops: string[] = [];
    const dfs = new DrumFs(undefined, (op, path) => {
      if (op === 'rename' || op === 'fsync') ops.push(`${op} ${path === dir ? 'DIR' : path.slice(dir.length + 1)}`);
    });
    const pending = new PendingBuckets(dfs, dir, 2, 64);
    for (let i = 0; i < 40; i++) pending.add((i % 2) * 0x80000000 + i, i, i);
    await mergeBuckets({
      dfs, pending, write: true, fsync: true, counters: newRunCounters(), newBits: new Uint8Array(8), onHit: null, keySink: null, worker: null,
      files: { openReader: () => null, outputPath: (b) => join(dir, `k${b}`), keysIn: () => 0 },
    }, new SortArea(64));
    const lastRename = ops.map((o) => o.startsWith('rename')).lastIndexOf(true);
    assert.ok(lastRename >= 0, ops.join(', '));
    assert.deepEqual(ops.slice(lastRename + 1), ['fsync DIR']);
    assert.equal(ops.filter((o) => o.startsWith('rename')).length, 2);
  });

  it('fsyncs no directory when fsync is off', async () => {
    const dir = tempDir();
    const ops: string[] = [];
    const dfs = new DrumFs(undefined, (op, path) => {
      if (op === 'fsync') ops.push(path);
    });
    const pending = new PendingBuckets(dfs, dir, 1, 64);
    for (let i = 0; i < 10; i++) pending.add(i, i, i);
    await mergeBuckets({
      dfs, pending, write: true, fsync: false, counters: newRunCounters(), newBits: new Uint8Array(8), onHit: null, keySink: null, worker: null,
      files: { openReader: () => null, outputPath: (b) => join(dir, `k${b}`), keysIn: () => 0 },
    }, new SortArea(64));
    assert.deepEqual(ops, []);
  });
});
