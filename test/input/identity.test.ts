// Tests of inputIdentity: the full hash equals sha256 of the file, the
// sampled hash sees the ends and the size but not the middle, and stdin or
// missing files fail with DRUM_INPUT.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inputIdentity, SAMPLE_BYTES } from '../../src/input/identity.js';
import { inputSize } from '../../src/input/open.js';
import { isDrumError } from '../../src/errors.js';

let dir = '';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('inputIdentity', () => {
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'drum-ident-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('hashes every byte of the file by default', async () => {
    const data = Buffer.alloc(3 * SAMPLE_BYTES + 5, 7);
    const p = path.join(dir, 'f');
    writeFileSync(p, data);
    assert.deepEqual(await inputIdentity(p), { bytes: data.length, sha256: sha(data), method: 'full' });
    assert.equal(await inputSize(p), data.length);
  });

  it('samples size, first and last MiB: a middle change is missed, an end change or a size change is not', async () => {
    const data = Buffer.alloc(3 * SAMPLE_BYTES, 1);
    const p = path.join(dir, 's');
    const id = async (b: Buffer) => {
      writeFileSync(p, b);
      return (await inputIdentity(p, { method: 'sampled' })).sha256;
    };
    const a = await id(data);
    const mid = Buffer.from(data);
    mid[Math.floor(data.length / 2)] = 9;
    assert.equal(await id(mid), a);
    const end = Buffer.from(data);
    end[data.length - 1] = 9;
    assert.notEqual(await id(end), a);
    assert.notEqual(await id(Buffer.concat([data, Buffer.from([1])])), a);
  });

  it('fails with DRUM_INPUT for stdin and for a missing file', async () => {
    await assert.rejects(inputIdentity('-'), (e: unknown) => isDrumError(e, 'DRUM_INPUT'));
    await assert.rejects(inputIdentity(path.join(dir, 'missing')), (e: unknown) => isDrumError(e, 'DRUM_INPUT'));
    await assert.rejects(inputSize(path.join(dir, 'missing')), (e: unknown) => isDrumError(e, 'DRUM_INPUT'));
    assert.equal(await inputSize('-'), null);
  });
});
