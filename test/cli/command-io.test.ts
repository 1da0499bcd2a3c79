// The shared CLI outcome helpers of src/cli/command-io.ts: the warning of a
// run whose every link line was rejected writes its counts as every other
// drum count is written (thousands separators, docs/cli.md "Output").
// Does not run commands (test/cli/e2e.test.ts and the other e2e files do).
// REQUIRES: nothing beyond the built module.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { warnAllRejected, type CliIo } from '../../src/cli/command-io.js';

/** A CliIo whose stderr is collected into `err`. */
function fakeIo(): { io: CliIo; err: string[] } {
  const err: string[] = [];
  const sink = { write: (s: string): boolean => (err.push(s), true) };
  return { io: { stdout: sink, stderr: sink, env: {}, cwd: '/' } as unknown as CliIo, err };
}

describe('warnAllRejected', () => {
  it('writes the line and reason counts with thousands separators', () => {
    const { io, err } = fakeIo();
    warnAllRejected(3_000_000, 3_000_000, { empty: 2_999_000, 'too-long': 1_000 }, io);
    assert.equal(err.length, 1);
    assert.ok(err[0]!.includes('all 3,000,000 link lines'));
    assert.ok(err[0]!.includes('(2,999,000 empty, 1,000 too-long)'));
  });

  it('says nothing when some line was accepted', () => {
    const { io, err } = fakeIo();
    warnAllRejected(3_000, 2_999, { empty: 2_999 }, io);
    assert.deepEqual(err, []);
  });
});
