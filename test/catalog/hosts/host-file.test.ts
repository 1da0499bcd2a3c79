// Tests of the host table file on its own: what is written is read back by
// lookups and ordered scans exactly as a Map model holds it, across block
// boundaries, and damage to the header, an index or a block is
// DRUM_CORRUPT_FILE.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { HostFileReader, HostFileWriter } from '../../../src/catalog/hosts/host-file.js';
import { DrumFs } from '../../../src/io/fs.js';
import { flipByte } from '../../helpers/damage.js';
import { tempDir } from '../../helpers/tmp.js';

function write(path: string, model: Map<string, number>): void {
  const w = new HostFileWriter(new DrumFs(), path);
  for (const h of [...model.keys()].sort()) w.add(h, model.get(h)!);
  w.finish(false);
}

const hostName = fc.stringMatching(/^[a-z0-9.-]{1,40}(:[0-9]{1,5})?$/);

describe('host table file', () => {
  it('reads back every host by lookup and in name order, from any start (property)', () => {
    const dir = tempDir();
    fc.assert(
      fc.property(fc.array(fc.tuple(hostName, fc.integer({ min: 1, max: 2 ** 40 })), { maxLength: 4000 }), fc.array(hostName, { maxLength: 20 }), (pairs, probes) => {
        const model = new Map(pairs);
        const path = join(dir, 'h.tbl');
        write(path, model);
        const r = HostFileReader.open(path);
        try {
          assert.equal(r.hosts, model.size);
          const sorted = [...model].sort((a, b) => (a[0] < b[0] ? -1 : 1));
          assert.deepEqual([...r.entries()], sorted);
          for (const p of [...probes, ...model.keys()].slice(0, 200)) {
            assert.equal(r.get(p), model.get(p) ?? 0);
            assert.deepEqual([...r.entries(p)], sorted.filter(([h]) => h >= p));
          }
        } finally {
          r.close();
        }
      }),
      { seed: 11, numRuns: 40 },
    );
  });

  it('refuses hosts out of order', () => {
    const w = new HostFileWriter(new DrumFs(), join(tempDir(), 'h.tbl'));
    w.add('b.example', 1);
    assert.throws(() => w.add('a.example', 1), { code: 'DRUM_INTERNAL' });
    w.abandon();
  });

  it('reports a flipped byte in the header, a block or the index as DRUM_CORRUPT_FILE', () => {
    const model = new Map<string, number>();
    for (let i = 0; i < 6000; i++) model.set(`host${String(i).padStart(5, '0')}.example`, i + 1);
    const dir = tempDir();
    const size = (p: string): number => statSync(p).size;
    for (const where of ['header', 'block', 'index'] as const) {
      const path = join(dir, `${where}.tbl`);
      write(path, model);
      flipByte(path, where === 'header' ? 0 : where === 'block' ? 40_000 : size(path) - 30);
      assert.throws(() => {
        const r = HostFileReader.open(path);
        try {
          for (const _ of r.entries()) void _;
        } finally {
          r.close();
        }
      }, { code: 'DRUM_CORRUPT_FILE' });
    }
  });
});
