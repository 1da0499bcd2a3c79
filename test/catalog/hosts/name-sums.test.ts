// Tests of the RAM that sums a fold's host counts by name: against a Map
// model, every count lands on its name's record whatever the names' bytes,
// whether names are copied in or summed where they lie; a new name is
// refused only when the names or bytes are full, and a refusal changes
// nothing.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { NameSums, NAME_RECORD_FIXED_BYTES } from '../../../src/catalog/hosts/name-sums.js';

/** Every name held with its count, as a Map (names latin1). */
function held(sums: NameSums): Map<string, number> {
  const m = new Map<string, number>();
  for (let u = 0; u < sums.size; u++) {
    const name = sums.buf.toString('latin1', sums.nameStart(u), sums.nameEnd(u));
    assert.equal(m.has(name), false, `${name} held twice`);
    m.set(name, sums.count(u));
  }
  return m;
}

describe('NameSums', () => {
  it('sums counts by name exactly as a Map does, refusing a new name only when full (property)', () => {
    const name = fc.oneof(fc.stringMatching(/^[a-c]{0,3}$/), fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)), maxLength: 30 }));
    fc.assert(
      fc.property(fc.array(fc.tuple(name, fc.integer({ min: -3, max: 50 })), { maxLength: 200 }), fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 200 }), (entries, maxNames, maxBytes) => {
        const sums = new NameSums(maxNames, maxBytes);
        const model = new Map<string, number>();
        const outside = new Map<string, number>();
        const src = Buffer.alloc(64);
        for (const [n, c] of entries) {
          model.set(n, (model.get(n) ?? 0) + c);
          const at = 7; // names start anywhere in their buffer
          const e = at + src.write(n, at, 'latin1');
          const before = held(sums);
          if (sums.add(src, at, e, c)) continue;
          assert.equal(before.has(n), false, 'a held name is never refused');
          assert.ok(sums.size === maxNames || sums.bytes + NAME_RECORD_FIXED_BYTES + (e - at) > maxBytes, 'refused with room');
          assert.deepEqual(held(sums), before, 'a refusal changes nothing');
          for (const [h, x] of before) outside.set(h, (outside.get(h) ?? 0) + x);
          sums.clear();
          if (!sums.add(src, at, e, c)) outside.set(n, (outside.get(n) ?? 0) + c);
        }
        for (const [h, x] of held(sums)) outside.set(h, (outside.get(h) ?? 0) + x);
        assert.deepEqual(outside, model);
      }),
      { numRuns: 300 },
    );
  });

  it('sums records already in its buffer in place, as a Map does (property)', () => {
    const name = fc.string({ unit: fc.constantFrom('a', 'b', '.', '\u00e9'), maxLength: 9 });
    fc.assert(
      fc.property(fc.array(fc.tuple(name, fc.integer({ min: -3, max: 50 })), { maxLength: 100 }), (entries) => {
        const buf = Buffer.alloc(entries.reduce((n, [h]) => n + NAME_RECORD_FIXED_BYTES + h.length, 0));
        const model = new Map<string, number>();
        let p = 0;
        for (const [h, c] of entries) {
          model.set(h, (model.get(h) ?? 0) + c);
          p = buf.writeUInt16LE(h.length, p);
          p = buf.writeDoubleLE(c, p);
          p += buf.write(h, p, 'latin1');
        }
        const sums = new NameSums(entries.length, buf);
        for (let at = 0; at < buf.length; at += NAME_RECORD_FIXED_BYTES + buf.readUInt16LE(at)) sums.addRecord(at);
        assert.deepEqual(held(sums), model);
      }),
      { numRuns: 200 },
    );
  });

  it('finds a name again after clear() only once it is added anew', () => {
    const sums = new NameSums(4, 100);
    const b = Buffer.from('example.org', 'latin1');
    assert.ok(sums.add(b, 0, b.length, 2));
    assert.ok(sums.add(b, 0, b.length, 3));
    assert.equal(sums.size, 1);
    assert.equal(sums.count(0), 5);
    sums.clear();
    assert.equal(sums.size, 0);
    assert.ok(sums.add(b, 0, b.length, 1));
    assert.equal(sums.count(0), 1);
  });
});
