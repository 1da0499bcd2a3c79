// The generic DRUM core with values (src/engine/core/drum-core.ts), driven by
// a client that is not URL-seen: 3-word values (an id handed out in
// first-arrival order, a hit counter its update hook bumps, and the seed
// the key's first arrival carried through the buckets) over rounds of
// check, update, check+update and delete, against a Map model; tiny buffers
// and sort slots so keys spill and buckets merge in slices.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { AuxLog } from '../../../src/bucket/aux-log.js';
import { PendingBuckets } from '../../../src/bucket/pending.js';
import { DrumCore, type CoreOp, type CoreValues } from '../../../src/engine/core/drum-core.js';
import { SortArea } from '../../../src/engine/core/sort-area.js';
import { DrumFs } from '../../../src/io/fs.js';
import { newRunCounters } from '../../../src/stats/counters.js';
import { KeyReader } from '../../../src/store/keys/key-reader.js';
import { ValueReader } from '../../../src/store/values/value-io.js';
import { tempDir } from '../../helpers/tmp.js';
import { dirStore } from './dir-store.js';

const WORDS = 3;
const POOL = 150;
const fingerprint = (i: number): [number, number] => [Math.imul(i + 1, 0x9e3779b1) >>> 0, Math.imul(i + 7, 0x85ebca6b) >>> 0];
const ops = fc.constantFrom<CoreOp>('check', 'update', 'check+update', 'delete');
const rounds = fc.array(fc.record({ op: ops, docs: fc.array(fc.nat({ max: POOL - 1 }), { maxLength: 100, size: 'max' }) }), { minLength: 1, maxLength: 7 });

describe('DrumCore with values', () => {
  it('fills new keys by rank and first arrival\'s seed, updates hits, drops deleted keys\' values and reports every new and hit value, like a Map', async () => {
    await fc.assert(
      fc.asyncProperty(rounds, fc.constantFrom(0, 2), fc.constantFrom(1, 7, 1 << 16), async (rs, bucketBits, sortEntries) => {
        const dir = tempDir();
        const dfs = new DrumFs();
        const store = dirStore(dfs, dir, 4 * WORDS);
        const files = store.entries;
        const core = new DrumCore(dfs, new PendingBuckets(dfs, dir, bucketBits, 4, true), new AuxLog(dfs, join(dir, 'aux.dat'), 1 << 16), new SortArea(sortEntries, true), WORDS, join(dir, 'events.dat'));
        const model = new Map<number, [number, number, number]>();
        let nextId = 0;
        let round = 0;
        for (const { op, docs } of rs) {
          round++;
          // Each arrival carries its own seed: a new key's value must get its first arrival's.
          const seedOf = (o: number): number => round * 1000 + o + 1;
          const text = Buffer.from(docs.map((d) => `doc-${d}`).join('\n'));
          let at = 0;
          docs.forEach((d, o) => {
            const [hi, lo] = fingerprint(d);
            core.add(hi, lo, text, at, at + `doc-${d}`.length, -1, -1, seedOf(o));
            at += `doc-${d}`.length + 1;
          });
          const seen = new Map<number, [number, number, number]>();
          const base = nextId;
          const values: CoreValues = {
            files: store.valueFiles,
            fill: (_o, rank, v, a, seed) => {
              v[a] = base + rank;
              v[a + 1] = 0;
              v[a + 2] = seed;
            },
            update: (_o, v, a) => {
              v[a + 1]!++;
              return true;
            },
            out: (o, v, a) => void seen.set(o, [v[a]!, v[a + 1]!, v[a + 2]!]),
          };
          const v = await core.merge(op, { files: store.files, fsync: false, counters: newRunCounters(), onHit: null, keySink: null, values });
          // The model: first arrivals of the round, new or found.
          const first = new Map<number, number>();
          docs.forEach((d, o) => {
            if (!first.has(d)) first.set(d, o);
          });
          const expected = new Map<number, [number, number, number]>();
          if (op === 'check+update' || op === 'update') {
            for (const [d, o] of first) {
              const m = model.get(d);
              if (m === undefined) model.set(d, [nextId++, 0, seedOf(o)]);
              else m[1]++;
              expected.set(o, [...model.get(d)!]);
            }
          } else if (op === 'check') {
            // A check reads the found keys' values (what resolve needs) and changes none.
            for (const [d, o] of first) {
              const m = model.get(d);
              if (m !== undefined) expected.set(o, [...m]);
            }
          } else if (op === 'delete') {
            for (const d of first.keys()) model.delete(d);
          }
          if (op !== 'delete') assert.deepEqual(new Map([...seen].sort((a, b) => a[0] - b[0])), new Map([...expected].sort((a, b) => a[0] - b[0])));
          store.commit(v.written);
          core.reset();
          // The files hold exactly the model.
          const stored = new Map<string, [number, number, number]>();
          for (const [b, f] of files) {
            const kr = KeyReader.open(dfs, f.path, { bucket: b, keys: f.keys }, f.bytes);
            const vr = f.values ? ValueReader.open(dfs, f.values.path, { bucket: b, count: f.keys, valueBytes: 4 * WORDS }, f.values.bytes) : null;
            const t = new Uint32Array(WORDS);
            while (kr.nextBlock()) {
              for (let i = 0; i < kr.n; i++) {
                assert.ok(vr, `bucket ${b} has keys but no values`);
                vr.take(t, 0);
                stored.set(`${kr.keys[2 * i]}:${kr.keys[2 * i + 1]}`, [t[0]!, t[1]!, t[2]!]);
              }
            }
            kr.close();
            vr?.close();
          }
          assert.deepEqual(stored, new Map([...model].map(([d, m]) => [fingerprint(d).join(':'), m])), `after ${op}`);
        }
        fs.rmSync(dir, { recursive: true, force: true });
      }),
      { seed: 99, numRuns: 60 },
    );
  });
});
