// Full disk and IO errors (short CI version; scripts/torture.ts sweeps every
// operation): ENOSPC and EIO injected through the fault seam at a sample of
// the mutating operations of a multi-round ingest, spread over the run plus
// the first of each kind (write, fsync, rename, unlink, truncate, open-write,
// mkdir). Each must stop the run with DRUM_IO and a message naming the errno
// code and the file (a fault in a saved cache file may instead be skipped:
// the run goes on without the cache); the last committed state must verify;
// a rerun without faults must complete with outputs identical to an
// uninterrupted run's.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir } from '../../helpers/tmp.js';
import { writeLinks } from '../harness.js';
import { faultAt, faultHandled, sampleOps, traceOps, type FaultCode } from './io-faults.js';

describe('ENOSPC and EIO at mutating file operations of an ingest', () => {
  it('stop the run with DRUM_IO, keep the committed state valid, and a clean rerun writes the uninterrupted outputs', async (t) => {
    const dir = tempDir();
    const input = join(dir, 'links.txt');
    writeLinks(input, 1200, 5, { hosts: 40, rejectEvery: 41 });
    const trace = await traceOps(dir, input);
    const kinds = new Set(trace.ops.map((o) => o.op));
    assert.ok(trace.ops.length > 100, `${trace.ops.length} operations`);
    assert.ok(Object.keys(trace.expected).length >= 4, 'several unique files plus rejects');
    const picks = sampleOps(trace, 8);
    const bad: string[] = [];
    let i = 0;
    for (const at of picks) {
      const code: FaultCode = i++ % 2 === 0 ? 'ENOSPC' : 'EIO';
      const r = await faultAt(dir, input, trace, at, code);
      if (!faultHandled(r)) bad.push(JSON.stringify(r));
    }
    t.diagnostic(`${picks.length} faults over ${trace.ops.length} operations of kinds ${[...kinds].join(', ')}`);
    assert.deepEqual(bad, []);
  });
});
