import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { DrumFs } from '../../../src/io/fs.js';
import { BLOCK_KEYS, keysFileBytes, KEYS_HEADER_BYTES } from '../../../src/store/keys/format.js';
import { KeyReader } from '../../../src/store/keys/key-reader.js';
import { KeyWriter } from '../../../src/store/keys/key-writer.js';
import { isDrumError } from '../../../src/errors.js';
import { tempDir } from '../../helpers/tmp.js';

function writeKeys(path: string, n: number, bucket = 3): { keys: number; bytes: number; crc: number } {
  const w = new KeyWriter(new DrumFs(), path, bucket, null, false);
  for (let i = 0; i < n; i++) w.push(((bucket << 26) | (i >>> 20)) >>> 0, (i * 4096 + 7) >>> 0);
  return w.finish();
}

function readAll(path: string, expect: { bucket: number; keys: number }): number[] {
  const r = KeyReader.open(new DrumFs(), path, expect, fs.statSync(path).size);
  const out: number[] = [];
  try {
    while (r.nextBlock()) for (let i = 0; i < r.n; i++) out.push(r.keys[2 * i + 1]!);
  } finally {
    r.close();
  }
  return out;
}

function assertCorrupt(fn: () => unknown, file: string): void {
  assert.throws(fn, (e: unknown) => isDrumError(e, 'DRUM_CORRUPT_FILE') && e.file === file);
}

describe('store key files', () => {
  it('round-trips keys across several blocks with the documented length', () => {
    const path = join(tempDir(), 'b.keys');
    const n = 2 * BLOCK_KEYS + 17;
    const w = writeKeys(path, n);
    assert.equal(w.keys, n);
    assert.equal(fs.statSync(path).size, keysFileBytes(n));
    assert.equal(w.bytes, keysFileBytes(n));
    const lo = readAll(path, { bucket: 3, keys: n });
    assert.equal(lo.length, n);
    assert.equal(lo[n - 1], ((n - 1) * 4096 + 7) >>> 0);
    assert.equal(fs.existsSync(`${path}.tmp`), false);
  });

  it('returns the CRC of every byte after the header, as the manifest records it', () => {
    for (const n of [1, BLOCK_KEYS, 3 * BLOCK_KEYS + 5, 17 * BLOCK_KEYS + 1]) {
      const path = join(tempDir(), 'b.keys');
      const w = writeKeys(path, n);
      assert.equal(w.crc, crc32(fs.readFileSync(path).subarray(KEYS_HEADER_BYTES)), `${n} keys`);
    }
  });

  it('reports a flipped byte in a block as DRUM_CORRUPT_FILE naming the file', () => {
    const path = join(tempDir(), 'b.keys');
    writeKeys(path, 1000);
    const b = fs.readFileSync(path);
    b[KEYS_HEADER_BYTES + 123]! ^= 0x40;
    fs.writeFileSync(path, b);
    assertCorrupt(() => readAll(path, { bucket: 3, keys: 1000 }), path);
  });

  it('reports a flipped header byte, a truncated file and a count the manifest disagrees with', () => {
    const dir = tempDir();
    const a = join(dir, 'a.keys');
    writeKeys(a, 100);
    const b = fs.readFileSync(a);
    b[9]! ^= 1;
    fs.writeFileSync(a, b);
    assertCorrupt(() => readAll(a, { bucket: 3, keys: 100 }), a);

    const t = join(dir, 't.keys');
    writeKeys(t, 100);
    fs.truncateSync(t, fs.statSync(t).size - 5);
    assertCorrupt(() => readAll(t, { bucket: 3, keys: 100 }), t);

    const c = join(dir, 'c.keys');
    writeKeys(c, 100);
    assertCorrupt(() => readAll(c, { bucket: 3, keys: 99 }), c);
    assertCorrupt(() => readAll(c, { bucket: 4, keys: 100 }), c);
  });
});
