// Tests of gunzip on damaged streams: trailing garbage after the last
// member, corruption in the middle of the deflate data, a cut stream, and a
// second read that fails. Each yields every byte zlib inflates before the
// damage (the output of the write zlib fails in too), then fails with
// DRUM_INPUT; an intact or cut stream is read once.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { constants as zlibConstants, deflateRawSync, gzipSync, gunzipSync } from 'node:zlib';
import { isDrumError } from '../../src/errors.js';
import { gunzip } from '../../src/input/gunzip.js';

/** ~2.6 MB of numbered URLs that compress about 4:1, so the stream spans many 64 KiB slices. */
const TEXT = Buffer.from(
  Array.from({ length: 60_000 }, (_, i) => `http://h.example/${i}/${((i * 2654435761) >>> 0).toString(36)}\n`).join(''),
);

/** `buf` in 256 KiB pieces, as a file is read. */
async function* pieces(buf: Buffer): AsyncGenerator<Buffer> {
  for (let at = 0; at < buf.length; at += 256 * 1024) yield buf.subarray(at, at + 256 * 1024);
}

/** Everything gunzip yields for `gz`, and the code it fails with (null if none). */
async function inflate(gz: Buffer, again?: () => AsyncIterable<Buffer>): Promise<{ out: Buffer; code: string | null }> {
  const got: Buffer[] = [];
  try {
    for await (const b of gunzip(pieces(gz), 'in.gz', again)) got.push(Buffer.from(b));
  } catch (e) {
    assert.ok(isDrumError(e), String(e));
    return { out: Buffer.concat(got), code: e.code };
  }
  return { out: Buffer.concat(got), code: null };
}

describe('gunzip on damaged streams', () => {
  it('keeps every byte before trailing garbage after the last member, then fails with DRUM_INPUT', async () => {
    const gz = Buffer.concat([gzipSync(TEXT), Buffer.from('garbage')]);
    const r = await inflate(gz, () => pieces(gz));
    assert.equal(r.code, 'DRUM_INPUT');
    assert.equal(r.out.length, TEXT.length);
    assert.ok(r.out.equals(TEXT));
  });

  it('keeps every byte of every member before trailing garbage after several members', async () => {
    const parts = [TEXT.subarray(0, 1_000_000), TEXT.subarray(1_000_000, 1_000_100), TEXT.subarray(1_000_100)];
    const gz = Buffer.concat([...parts.map((p) => gzipSync(p)), Buffer.from('\x01garbage that is longer than a gzip header')]);
    const r = await inflate(gz, () => pieces(gz));
    assert.equal(r.code, 'DRUM_INPUT');
    assert.equal(r.out.length, TEXT.length);
    assert.ok(r.out.equals(TEXT));
  });

  it('keeps every byte inflated before corruption in the middle of the deflate data', async () => {
    // A full flush ends the deflate data of `good` on a byte boundary, where a 0xff then reads as a block of the
    // invalid type 3: zlib fails right at the damage, in the middle of a slice, with more of the stream after it.
    const good = TEXT.subarray(0, 1_000_000);
    const head = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
    const deflated = deflateRawSync(good, { finishFlush: zlibConstants.Z_FULL_FLUSH });
    const bad = Buffer.concat([head, deflated, Buffer.alloc(64, 0xff), deflateRawSync(TEXT.subarray(1_000_000))]);
    const damageAt = head.length + deflated.length;
    assert.ok(damageAt % (64 * 1024) > 4096 && damageAt < bad.length - 4096, String(damageAt));
    const r = await inflate(bad, () => pieces(bad));
    assert.equal(r.code, 'DRUM_INPUT');
    assert.equal(r.out.length, good.length);
    assert.ok(r.out.equals(good));
  });

  it('yields only a prefix of the good bytes when the stream cannot be read again', async () => {
    const gz = Buffer.concat([gzipSync(TEXT), Buffer.from('garbage')]);
    const r = await inflate(gz);
    assert.equal(r.code, 'DRUM_INPUT');
    assert.ok(r.out.length > TEXT.length / 2 && r.out.equals(TEXT.subarray(0, r.out.length)));
  });

  it('reports the first failure and yields nothing wrong when the second read fails', async () => {
    const gz = Buffer.concat([gzipSync(TEXT), Buffer.from('garbage')]);
    const r = await inflate(gz, async function* () {
      yield gz.subarray(0, 1000);
      throw new Error('EIO');
    });
    assert.equal(r.code, 'DRUM_INPUT');
    assert.ok(r.out.equals(TEXT.subarray(0, r.out.length)));
  });

  it('reads an intact stream and a cut one only once', async () => {
    const gz = gzipSync(TEXT);
    const never = (): AsyncIterable<Buffer> => assert.fail('read again');
    const whole = await inflate(gz, never);
    assert.equal(whole.code, null);
    assert.ok(whole.out.equals(TEXT));
    // A cut stream fails at its end, after zlib has output everything: nothing to recover.
    const cut = gz.subarray(0, Math.floor(gz.length * 0.7));
    const r = await inflate(cut, never);
    assert.equal(r.code, 'DRUM_INPUT');
    assert.ok(r.out.equals(gunzipSync(cut, { finishFlush: zlibConstants.Z_SYNC_FLUSH })));
  });
});
