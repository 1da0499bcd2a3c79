// The streamed scale run (scripts/scale-run.ts): slices cut from the
// generator's pipe cover every link exactly once, and the one store they go
// into ends with exactly the generator model's count of distinct URLs under
// the default policy. Runs the real drum CLI on 60 k links in 3 slices.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { scaleRun } from '../../scripts/scale-run.js';
import { generateLinks } from '../../scripts/gen-links.js';

describe('streamed scale run', () => {
  let dir = '';
  before(() => { dir = mkdtempSync(join(tmpdir(), 'drum-scale-run-test-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('ingests every generated link once, slice by slice, into one store', async () => {
    const links = 60_000;
    const r = await scaleRun({ links, slice: 25_000, seed: 3, work: join(dir, 'w'), json: join(dir, 'r.json'), keepOutputs: false, log: () => {} });
    assert.deepEqual(r.slices.map((s) => s.links), [25_000, 25_000, 10_000]);
    assert.deepEqual(r.slices.map((s) => s.linksBefore), [0, 25_000, 50_000]);
    const meta = await generateLinks({ links, seed: 3, out: join(dir, 'all.txt') });
    const last = r.slices.at(-1)!;
    assert.equal(last.storeUrlsBefore + last.newUrls, meta.unique.defaultPolicy);
    assert.equal(r.slices.reduce((a, s) => a + s.newUrls, 0), meta.unique.defaultPolicy);
    assert.ok(existsSync(join(dir, 'r.json')));
  });
});
