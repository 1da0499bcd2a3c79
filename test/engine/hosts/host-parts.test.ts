// Tests of the bounded-RAM host-count parts: parts past the RAM cap go to
// the work file through DrumFs (the fault seam sees them), come back intact
// and in order, and a counter that spills adds up exactly like a Map model.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { encodeHostMap, forEachHost } from '../../../src/catalog/hosts/host-delta.js';
import { HostCounter } from '../../../src/engine/hosts/host-counter.js';
import { HostParts } from '../../../src/engine/hosts/host-parts.js';
import { isDrumError } from '../../../src/errors.js';
import { DrumFs, type FsOp } from '../../../src/io/fs.js';
import { tempDir } from '../../helpers/tmp.js';

function part(i: number): Buffer {
  return encodeHostMap(new Map([[`h${i}.example`, i + 1], [`shared.example`, 1]]));
}

describe('HostParts', () => {
  it('keeps parts up to the RAM cap and appends the rest to the work file, yielding all in order', () => {
    const ops: string[] = [];
    const dfs = new DrumFs(undefined, (op: FsOp, path: string) => void ops.push(`${op} ${path}`));
    const path = join(tempDir(), 'hosts.parts');
    const p = new HostParts({ dfs, path, ramBytes: 2 * part(0).length });
    for (let i = 0; i < 10; i++) p.push(part(i));
    assert.equal(p.count, 10);
    assert.equal(p.spilled, 8);
    assert.ok(existsSync(path));
    assert.ok(ops.includes(`open-write ${path}`));
    assert.ok(ops.filter((o) => o === `write ${path}`).length >= 8);
    for (let pass = 0; pass < 2; pass++) {
      const got: Buffer[] = [];
      for (const b of p) got.push(Buffer.from(b)); // a spilled part is valid until the next is requested
      assert.equal(got.length, 10);
      got.forEach((b, i) => assert.deepEqual(b, part(i)));
    }
    p.close();
    assert.equal(existsSync(path), false);
    assert.throws(() => [...p], (e) => isDrumError(e, 'DRUM_INTERNAL'));
  });

  it('copies a lent part it keeps in RAM and writes a lent part it spills as it was, so the caller may reuse the buffer', () => {
    const path = join(tempDir(), 'hosts.parts');
    const p = new HostParts({ dfs: new DrumFs(), path, ramBytes: 2 * part(0).length });
    const lent = Buffer.alloc(64);
    for (let i = 0; i < 6; i++) {
      const b = part(i);
      b.copy(lent);
      p.push(lent.subarray(0, b.length), true);
      lent.fill(0xee); // the caller's next use of its buffer
    }
    assert.equal(p.spilled, 4);
    const got: Buffer[] = [];
    for (const b of p) got.push(Buffer.from(b));
    got.forEach((b, i) => assert.deepEqual(b, part(i)));
    p.close();
  });

  it('drops empty parts and never opens the work file while under the cap', () => {
    const dfs = new DrumFs();
    const path = join(tempDir(), 'hosts.parts');
    const p = new HostParts({ dfs, path });
    p.push(encodeHostMap(new Map()));
    p.push(part(1));
    assert.equal(p.count, 1);
    assert.equal(p.spilled, 0);
    assert.equal(existsSync(path), false);
    p.close();
  });

  it('reports a failed spill write as DRUM_IO', () => {
    const dfs = new DrumFs(undefined, (op: FsOp) => {
      if (op === 'write') throw Object.assign(new Error('no space'), { code: 'ENOSPC' });
    });
    const p = new HostParts({ dfs, path: join(tempDir(), 'hosts.parts'), ramBytes: 0 });
    assert.throws(() => p.push(part(1)), (e) => isDrumError(e, 'DRUM_IO'));
    p.close();
  });

  it('refuses a second round spilling to a work file the first still holds', () => {
    const dfs = new DrumFs();
    const path = join(tempDir(), 'hosts.parts');
    const a = new HostParts({ dfs, path, ramBytes: 0 });
    a.push(part(1));
    const b = new HostParts({ dfs, path, ramBytes: 0 });
    assert.throws(() => b.push(part(2)), (e) => isDrumError(e, 'DRUM_INTERNAL'));
    a.close();
    b.push(part(2));
    assert.deepEqual([...b], [part(2)]);
    b.close();
  });
});

describe('HostCounter with a spill file', () => {
  it('adds up per host exactly like a Map, whatever parts went to disk', () => {
    const dir = tempDir();
    const dfs = new DrumFs();
    const path = join(dir, 'hosts.parts');
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 9 })), { maxLength: 2000 }), (adds) => {
        const hc = new HostCounter({ dfs, path, ramBytes: 64 }, 16);
        const model = new Map<string, number>();
        for (const [h, p] of adds) {
          const host = h % 7 === 0 ? `h${h}.example:8080` : `h${h}.example`;
          const b = Buffer.from(`http://${host}/p${p}?q`);
          hc.add(b, 0, b.length);
          model.set(host, (model.get(host) ?? 0) + 1);
        }
        const parts = hc.take();
        if (model.size > 40) assert.ok(parts.spilled > 0);
        const got = new Map<string, number>();
        for (const b of parts) forEachHost(b, (h, c) => got.set(h, (got.get(h) ?? 0) + c));
        parts.close();
        assert.equal(existsSync(path), false);
        assert.deepEqual(new Map([...got].sort()), new Map([...model].sort()));
      }),
      { seed: 4242, numRuns: 60 },
    );
  });

  it('starts the next round afresh after take() and after discard()', () => {
    const dfs = new DrumFs();
    const path = join(tempDir(), 'hosts.parts');
    const hc = new HostCounter({ dfs, path, ramBytes: 0 }, 4);
    const add = (u: string): void => {
      const b = Buffer.from(u);
      hc.add(b, 0, b.length);
    };
    for (let i = 0; i < 20; i++) add(`http://a${i}.example/`);
    hc.discard();
    assert.equal(existsSync(path), false);
    for (let i = 0; i < 10; i++) add(`http://b${i}.example/`);
    const m = hc.takeMap();
    assert.equal(m.size, 10);
    assert.equal(m.get('b3.example'), 1);
    assert.equal(hc.takeMap().size, 0);
  });
});
