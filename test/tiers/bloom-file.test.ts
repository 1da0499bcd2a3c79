// Tests for src/tiers/bloom-file.ts: a written filter reads back identical;
// the write leaves no temporary file; every flipped byte, truncation, extra
// byte or wrong magic reads as DRUM_CORRUPT_FILE naming the file; a missing
// file is DRUM_IO.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlockedBloom } from '../../src/tiers/bloom.js';
import { DrumFs } from '../../src/io/fs.js';
import { HEADER_BYTES, readBloom, writeBloom } from '../../src/tiers/bloom-file.js';
import { isDrumError } from '../../src/errors.js';
import { randomKeys } from './keys.js';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'drum-bloom-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function sample(n = 3000, bpk = 10): BlockedBloom {
  const f = BlockedBloom.forKeys(n, bpk);
  const ks = randomKeys(n, 5);
  for (let i = 0; i < n; i++) f.add(ks.hi[i]!, ks.lo[i]!);
  return f;
}

async function assertCorrupt(path: string): Promise<void> {
  await assert.rejects(readBloom(new DrumFs(), path), (e: unknown) => {
    assert.ok(isDrumError(e, 'DRUM_CORRUPT_FILE'), `got ${String(e)}`);
    assert.equal(e.file, path);
    return true;
  });
}

describe('bloom filter files', () => {
  it('round-trips a filter: same size, k, bits per key, key count and bits', async () => {
    const f = sample();
    const path = join(dir, 'rt.bloom');
    await writeBloom(new DrumFs(), path, f, { fsync: true });
    const g = await readBloom(new DrumFs(), path);
    assert.equal(g.blocks, f.blocks);
    assert.equal(g.k, f.k);
    assert.equal(g.bitsPerKey, 10);
    assert.equal(g.keys, 3000);
    assert.deepEqual(g.words, f.words);
    const ks = randomKeys(3000, 5);
    for (let i = 0; i < 3000; i++) assert.ok(g.mayContain(ks.hi[i]!, ks.lo[i]!));
    assert.equal((await readFile(path)).length, HEADER_BYTES + f.bytes);
  });

  it('replaces an existing file and leaves no temporary file behind', async () => {
    const path = join(dir, 'replace.bloom');
    await writeBloom(new DrumFs(), path, sample(100), { fsync: false });
    await writeBloom(new DrumFs(), path, sample(5000, 8), { fsync: false });
    const g = await readBloom(new DrumFs(), path);
    assert.equal(g.keys, 5000);
    assert.equal(g.bitsPerKey, 8);
    assert.deepEqual((await readdir(dir)).filter((n) => n.endsWith('.tmp')), []);
  });

  it('reads a file with a flipped byte anywhere in the header or bit array as DRUM_CORRUPT_FILE', async () => {
    const path = join(dir, 'good.bloom');
    await writeBloom(new DrumFs(), path, sample(200), { fsync: false });
    const good = await readFile(path);
    const bad = join(dir, 'flipped.bloom');
    const positions = [...Array(HEADER_BYTES).keys(), HEADER_BYTES, HEADER_BYTES + 17, good.length - 1];
    for (const pos of positions) {
      const copy = Buffer.from(good);
      copy[pos] = copy[pos]! ^ 0x10;
      await writeFile(bad, copy);
      await assertCorrupt(bad);
    }
  });

  it('reads a truncated or extended file as DRUM_CORRUPT_FILE', async () => {
    const path = join(dir, 'good2.bloom');
    await writeBloom(new DrumFs(), path, sample(200), { fsync: false });
    const good = await readFile(path);
    const bad = join(dir, 'cut.bloom');
    for (const len of [0, 3, HEADER_BYTES - 1, HEADER_BYTES, good.length - 64, good.length - 1]) {
      await writeFile(bad, good.subarray(0, len));
      await assertCorrupt(bad);
    }
    await writeFile(bad, Buffer.concat([good, Buffer.alloc(1)]));
    await assertCorrupt(bad);
  });

  it('reads a file with the wrong magic as DRUM_CORRUPT_FILE', async () => {
    const bad = join(dir, 'magic.bloom');
    await writeFile(bad, Buffer.alloc(HEADER_BYTES + 64));
    await assertCorrupt(bad);
    await writeFile(bad, 'just some text that is long enough to be a header....');
    await assertCorrupt(bad);
  });

  it('reports a missing file as DRUM_IO', async () => {
    await assert.rejects(readBloom(new DrumFs(), join(dir, 'nope.bloom')), { code: 'DRUM_IO' });
  });

  it('reports an unwritable path as DRUM_IO', async () => {
    await assert.rejects(writeBloom(new DrumFs(), join(dir, 'no-such-dir', 'x.bloom'), sample(10)), { code: 'DRUM_IO' });
  });
});
