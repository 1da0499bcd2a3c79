// scripts/profile-shares.ts: samples are summed by stage from their script
// path, idle samples are left out of the busy total, and unknown scripts
// count as 'other'.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { addProfile, emptyShares, stageOf } from '../../scripts/profile-shares.js';

const frame = (id: number, functionName: string, url: string) => ({ id, callFrame: { functionName, url, lineNumber: 0 } });

describe('profile shares', () => {
  it('sums self time by stage and leaves idle samples out of the busy total', () => {
    const s = emptyShares();
    addProfile({
      nodes: [
        frame(1, 'fastCanonical', 'file:///r/dist/src/canonicalize/fast.js'),
        frame(2, 'murmur3x2View', 'file:///r/dist/src/fingerprint/hash.js'),
        frame(3, '(idle)', ''),
        frame(4, 'writeBuffer', ''),
      ],
      samples: [1, 1, 2, 3, 4],
      timeDeltas: [10, 20, 5, 100, 7],
    }, s);
    assert.equal(s.busyUs, 42);
    assert.equal(s.idleUs, 100);
    assert.equal(s.stages.get('canonicalize'), 30);
    assert.equal(s.stages.get('hash'), 5);
    assert.equal(s.stages.get('other'), 7);
    assert.equal(s.functions.get('fastCanonical src/canonicalize/fast.js:1'), 30);
  });

  it('names the stages of the hot loops by their files', () => {
    assert.equal(stageOf('file:///x/dist/src/input/split.js'), 'split');
    assert.equal(stageOf('file:///x/dist/src/tiers/line-memo.js'), 'line memo');
    assert.equal(stageOf('file:///x/dist/src/engine/url-seen/front.js'), 'route');
    assert.equal(stageOf('node:internal/crypto/hash'), 'input SHA-256');
    assert.equal(stageOf('file:///x/dist/src/cli/main.js'), 'other');
  });
});
