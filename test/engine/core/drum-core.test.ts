// The generic DRUM core (src/engine/core/drum-core.ts) driven by a client
// that is not URL-seen: 64-bit content fingerprints with a document name as
// aux payload, as a store of document fingerprints would use it. Checked
// against a Set model over rounds of check, update, check+update and delete, with
// tiny buffers and sort slots so keys spill and buckets merge in slices.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { AuxLog } from '../../../src/bucket/aux-log.js';
import { PendingBuckets } from '../../../src/bucket/pending.js';
import { DrumCore, countBits, type CoreOp } from '../../../src/engine/core/drum-core.js';
import { SortArea } from '../../../src/engine/core/sort-area.js';
import { DrumFs } from '../../../src/io/fs.js';
import { resolvePolicy } from '../../../src/canonicalize/policy.js';
import { ParsePool } from '../../../src/engine/workers/parse-pool.js';
import { newRunCounters } from '../../../src/stats/counters.js';
import { tempDir } from '../../helpers/tmp.js';
import { dirStore } from './dir-store.js';

// Fingerprints drawn from a small pool so rounds repeat each other and themselves.
const POOL = 200;
const fingerprint = (i: number): [number, number] => [Math.imul(i + 1, 0x9e3779b1) >>> 0, Math.imul(i + 7, 0x85ebca6b) >>> 0];
const ops = fc.constantFrom<CoreOp>('check', 'update', 'check+update', 'delete');
const rounds = fc.array(fc.record({ op: ops, docs: fc.array(fc.nat({ max: POOL - 1 }), { maxLength: 120, size: 'max' }) }), { minLength: 1, maxLength: 6 });

describe('DrumCore', () => {
  it('answers check, update, check+update and delete over fingerprints like a Set, dispatching marked payloads in arrival order', async () => {
    await fc.assert(
      fc.asyncProperty(rounds, fc.constantFrom(0, 1, 3), fc.constantFrom(1, 7, 1 << 16), async (rs, bucketBits, sortEntries) => {
        const dir = tempDir();
        try {
          const dfs = new DrumFs();
          const store = dirStore(dfs, dir);
          const core = new DrumCore(dfs, new PendingBuckets(dfs, dir, bucketBits, 4), new AuxLog(dfs, join(dir, 'aux.dat'), 1 << 16), new SortArea(sortEntries));
          const model = new Set<number>();
          for (const { op, docs } of rs) {
            const text = Buffer.from(docs.map((d) => `doc-${d}`).join('\n'));
            let at = 0;
            for (const d of docs) {
              const end = at + `doc-${d}`.length;
              const [hi, lo] = fingerprint(d);
              assert.equal(core.add(hi, lo, text, at, end), core.records - 1);
              at = end + 1;
            }
            const got: string[] = [];
            const v = await core.merge(op, {
              files: store.files, fsync: false, counters: newRunCounters(), onHit: null, keySink: null,
              emit: (buf, s, e) => got.push(buf.toString('latin1', s, e)),
            });
            // Marked: a key's first arrival in the round that is new (stored, for 'delete': found and removed).
            const marked: number[] = [];
            const inRound = new Set<number>();
            docs.forEach((d, o) => {
              const mark = !inRound.has(d) && (op === 'delete' ? model.has(d) : !model.has(d));
              if (mark) marked.push(d);
              inRound.add(d);
              assert.equal((v.newBits[o >>> 3]! >>> (o & 7)) & 1, mark ? 1 : 0, `verdict of ordinal ${o}`);
            });
            assert.equal(v.records, docs.length);
            assert.equal(v.newKeys, marked.length);
            assert.equal(countBits(v.newBits), marked.length);
            assert.deepEqual(got, op === 'update' ? [] : marked.map((d) => `doc-${d}`));
            if (op === 'check') assert.equal(v.written.size, 0);
            else if (op === 'delete') for (const d of marked) model.delete(d);
            else for (const d of marked) model.add(d);
            store.commit(v.written);
            core.reset();
          }
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 60 },
    );
  });

  it('sorts on the worker and dispatches through it in whole blocks, for check+update and for delete alike', async () => {
    const dir = tempDir();
    const dfs = new DrumFs();
    const store = dirStore(dfs, dir);
    const pool = new ParsePool(resolvePolicy({}), 8, 1, 0);
    const core = new DrumCore(dfs, new PendingBuckets(dfs, dir, 2, 64), new AuxLog(dfs, join(dir, 'aux.dat'), 1 << 16), new SortArea(1 << 12));
    const round = async (op: CoreOp, docs: number[]): Promise<string[]> => {
      const text = Buffer.from(docs.map((d) => `doc-${d}`).join('\n'));
      let at = 0;
      for (const d of docs) {
        const end = at + `doc-${d}`.length;
        const [hi, lo] = fingerprint(d);
        core.add(hi, lo, text, at, end);
        at = end + 1;
      }
      const got: string[] = [];
      const v = await core.merge(op, {
        files: store.files, fsync: false, counters: newRunCounters(), onHit: null, keySink: null,
        emit: () => assert.fail('a worker round dispatches in blocks'),
        worker: { pool, minRecords: 1 },
        sink: {
          urlsPerFile: 1_000_000,
          room: () => 1_000_000,
          block: (b) => {
            let s = 0;
            for (let i = 0; i < b.n; i++) {
              got.push(Buffer.from(b.bytes.subarray(s, b.ends[i]!)).toString('latin1'));
              s = b.ends[i]! + 1;
            }
          },
        },
      });
      assert.equal(v.newKeys, got.length);
      store.commit(v.written);
      core.reset();
      return got;
    };
    try {
      const first = Array.from({ length: 3000 }, (_, i) => (i * 7919) % 5000);
      const stored = [...new Set(first)];
      assert.deepEqual(await round('check+update', first), stored.map((d) => `doc-${d}`));
      // Forget every third stored document, asked twice and mixed with documents never stored.
      const forget = stored.filter((_, i) => i % 3 === 0);
      const asked = [...forget.map((d) => d + 5000), ...forget, ...forget];
      assert.deepEqual(await round('delete', asked), forget.map((d) => `doc-${d}`));
      // Forgotten documents are new again; the others are not.
      assert.deepEqual(await round('check', stored), forget.map((d) => `doc-${d}`));
    } finally {
      await pool.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
