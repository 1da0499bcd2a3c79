// Tests of a round's value events: whatever the RAM share, each bucket's
// (position, ordinal, seed) events come back in the order recorded, across
// the RAM / work-file boundary, and reset() leaves no work file.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { EVENTS_RAM, ValueEvents } from '../../../src/engine/core/value-events.js';
import { DrumFs } from '../../../src/io/fs.js';
import { tempDir } from '../../helpers/tmp.js';

function readBack(ev: ValueEvents, b: number): number[][] {
  const out: number[][] = [];
  ev.forEachRun(b, (e, n) => {
    for (let k = 0; k < n; k++) out.push([e[3 * k]!, e[3 * k + 1]!, e[3 * k + 2]!]);
  });
  return out;
}

describe('ValueEvents', () => {
  it('hands each bucket its events in recorded order, in RAM or spilled (property)', () => {
    const buckets = fc.array(fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { maxLength: 40 }), { maxLength: 6 });
    fc.assert(
      fc.property(buckets, fc.integer({ min: 1, max: 9 }), (perBucket, ram) => {
        const dir = tempDir();
        const ev = new ValueEvents(new DrumFs(), join(dir, 'events.dat'), ram);
        perBucket.forEach((events, b) => {
          ev.begin(b);
          for (const [p, o, s] of events) ev.add(p, o, s);
          ev.end();
        });
        perBucket.forEach((events, b) => {
          assert.equal(ev.count(b), events.length);
          assert.deepEqual(readBack(ev, b), events);
        });
        ev.reset();
        assert.deepEqual(fs.readdirSync(dir), []);
      }),
      { numRuns: 200 },
    );
  });

  it('spills past its default RAM share and reads every event back', () => {
    const dir = tempDir();
    const ev = new ValueEvents(new DrumFs(), join(dir, 'events.dat'));
    const n = EVENTS_RAM + 1000;
    ev.begin(3);
    for (let i = 0; i < n; i++) ev.add(i, 2 * i, i ^ 0x5a5a);
    ev.end();
    let i = 0;
    ev.forEachRun(3, (e, m) => {
      for (let k = 0; k < m; k++, i++) {
        if (e[3 * k] !== i || e[3 * k + 1] !== 2 * i || e[3 * k + 2] !== (i ^ 0x5a5a)) assert.fail(`event ${i}`);
      }
    });
    assert.equal(i, n);
    ev.reset();
  });
});
