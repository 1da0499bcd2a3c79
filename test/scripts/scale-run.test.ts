// The streamed scale run (scripts/scale-run.ts): slices cut from the
// generator's pipe cover every link exactly once, and the one store they go
// into ends with exactly the generator model's count of distinct URLs under
// the default policy, also when slices grow with the store; the cost
// model's fit over slices of several sizes. Runs the real drum CLI on 60 k links.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { scaleRun } from '../../scripts/scale-run.js';
import { fitPlane, sliceLinks } from '../../scripts/scale-fit.js';
import { generateLinks } from '../../scripts/gen-links.js';

describe('streamed scale run', () => {
  let dir = '';
  before(() => { dir = mkdtempSync(join(tmpdir(), 'drum-scale-run-test-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('ingests every generated link once, slice by slice, into one store that verifies', async () => {
    const links = 60_000;
    const r = await scaleRun({ links, slice: 25_000, seed: 3, work: join(dir, 'w'), json: join(dir, 'r.json'), keepOutputs: false, log: () => {} });
    assert.deepEqual(r.slices.map((s) => s.links), [25_000, 25_000, 10_000]);
    assert.deepEqual(r.slices.map((s) => s.linksBefore), [0, 25_000, 50_000]);
    const meta = await generateLinks({ links, seed: 3, out: join(dir, 'all.txt') });
    const last = r.slices.at(-1)!;
    assert.equal(last.storeUrlsBefore + last.newUrls, meta.unique.defaultPolicy);
    assert.equal(r.slices.reduce((a, s) => a + s.newUrls, 0), meta.unique.defaultPolicy);
    assert.ok(existsSync(join(dir, 'r.json')));
    assert.equal(r.verify?.ok, true, r.verify?.summary);
  });

  it('grows each slice with the store under --slice-growth and still ingests every link once', async () => {
    const links = 60_000;
    const r = await scaleRun({ links, slice: 5_000, sliceGrowth: 2, seed: 3, work: join(dir, 'g'), json: join(dir, 'g.json'), keepOutputs: false, log: () => {} });
    const sizes = r.slices.map((s) => s.links);
    assert.equal(sizes.reduce((a, n) => a + n, 0), links);
    for (let i = 1; i < r.slices.length - 1; i++) {
      assert.equal(sizes[i], sliceLinks(5_000, 2, r.slices[i]!.storeUrlsBefore), `slice ${i + 1}`);
    }
    assert.ok(sizes.some((n) => n > 5_000), 'some slice grew');
    const meta = await generateLinks({ links, seed: 3, out: join(dir, 'all-g.txt') });
    const last = r.slices.at(-1)!;
    assert.equal(last.storeUrlsBefore + last.newUrls, meta.unique.defaultPolicy);
  });
});

describe('IRLbot cost model fit', () => {
  it('recovers the per-link and per-stored-URL terms from slices of several sizes', () => {
    const ls = [1e7, 2e7, 2e7, 3e7, 5e7, 4e7], ss = [1e6, 5e6, 2e7, 4e7, 8e7, 1.2e8];
    const ys = ls.map((l, i) => 2 + 1e-6 * l + 1.5e-7 * ss[i]!);
    const f = fitPlane(ls, ss, ys, 1e7)!;
    assert.ok(Math.abs(f.c! - 2) < 1e-6 && Math.abs(f.p! - 1e-6) < 1e-12 && Math.abs(f.b - 1.5e-7) < 1e-13, JSON.stringify(f));
    assert.ok(f.r2 > 0.999999);
  });

  it('refuses a plane when slice size and store size move together', () => {
    const ls = [1e7, 2e7, 3e7, 4e7];
    assert.equal(fitPlane(ls, ls.map((l) => l * 2), ls.map((l) => l), 1e7), null);
  });
});
