// Tests of closeEach (src/io/close-each.ts): every close runs, in order,
// awaited, whatever failed before it; the first error comes back, not thrown.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeEach } from '../../src/io/close-each.js';

describe('closeEach', () => {
  it('runs every close in order though earlier ones fail, and returns the first error', async () => {
    const ran: string[] = [];
    const first = new Error('first');
    const r = await closeEach([
      () => ran.push('a'),
      () => { ran.push('b'); throw first; },
      async () => { await new Promise((res) => setTimeout(res, 5)); ran.push('c'); throw new Error('second'); },
      () => ran.push('d'),
    ]);
    assert.deepEqual(ran, ['a', 'b', 'c', 'd']);
    assert.equal(r, first);
  });

  it('returns undefined when every close succeeds', async () => {
    assert.equal(await closeEach([() => undefined, async () => undefined]), undefined);
  });
});
