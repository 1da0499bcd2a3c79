// Tests of the round delta file: parts come back as written (empty ones
// left out), a missing file, a flipped byte or a damaged part length is
// DRUM_CORRUPT_FILE naming the file, never a buffer the size of the damage,
// and the file's name is durable, hosts/'s own too when the file made it.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { DrumFs, type FsOp } from '../../../src/io/fs.js';
import { isDrumError } from '../../../src/errors.js';
import { encodeHostMap } from '../../../src/catalog/hosts/host-delta.js';
import { deltaFileName, forEachDeltaPart, HEADER_BYTES, writeDeltaFile } from '../../../src/catalog/hosts/delta-file.js';
import { tempDir } from '../../helpers/tmp.js';

function readParts(path: string): Buffer[] {
  const out: Buffer[] = [];
  forEachDeltaPart(new DrumFs(), path, (p) => out.push(Buffer.from(p)));
  return out;
}

const corruptAt = (path: string) => (e: unknown) => isDrumError(e) && e.code === 'DRUM_CORRUPT_FILE' && e.file === path;

describe('round delta file', () => {
  it('gives back every part with hosts, in order, and records their count, bytes and hosts (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.stringMatching(/^[a-z]{1,12}\.example$/), fc.integer({ min: -5, max: 1000 })), { maxLength: 8 }), (maps) => {
        const dir = tempDir();
        const parts = maps.map((m) => encodeHostMap(new Map(Object.entries(m))));
        const rec = writeDeltaFile(new DrumFs(), dir, deltaFileName('run-1|0000000003'), parts, false);
        const kept = parts.filter((_, i) => Object.keys(maps[i]!).length > 0);
        assert.deepEqual(readParts(join(dir, rec.name)), kept);
        assert.equal(rec.parts, kept.length);
        assert.equal(rec.bytes, kept.reduce((a, p) => a + p.length, 0));
        assert.equal(rec.hosts, maps.reduce((a, m) => a + Object.keys(m).length, 0));
        assert.equal(fs.existsSync(join(dir, `${rec.name}.tmp`)), false);
      }),
      { numRuns: 50 },
    );
  });

  it('is DRUM_CORRUPT_FILE naming the file when it is missing, has a flipped byte or a damaged part length', () => {
    const dir = tempDir();
    const part = encodeHostMap(new Map([['a.example', 3], ['b.example', 4]]));
    const rec = writeDeltaFile(new DrumFs(), dir, deltaFileName('r|0000000000'), [part, part], false);
    const path = join(dir, rec.name);
    const good = fs.readFileSync(path);
    assert.throws(() => readParts(join(dir, 'delta-gone.hd')), corruptAt(join(dir, 'delta-gone.hd')));
    const flipped = Buffer.from(good);
    flipped[HEADER_BYTES + 4 + 10]! ^= 0x01;
    fs.writeFileSync(path, flipped);
    assert.throws(() => readParts(path), corruptAt(path));
    const long = Buffer.from(good);
    long.writeUInt32LE(0xfffffff0, HEADER_BYTES);
    fs.writeFileSync(path, long);
    assert.throws(() => readParts(path), corruptAt(path));
    fs.writeFileSync(path, good.subarray(0, good.length - 3));
    assert.throws(() => readParts(path), corruptAt(path));
  });

  it('fsyncs the directory that holds hosts/ when its first delta file creates it, and only hosts/ after that', () => {
    const state = tempDir();
    const hosts = join(state, 'hosts');
    const parts = [encodeHostMap(new Map([['a.example', 1]]))];
    const fsyncs = (name: string): string[] => {
      const seen: string[] = [];
      writeDeltaFile(new DrumFs(undefined, (op: FsOp, path: string) => void (op === 'fsync' && seen.push(path))), hosts, deltaFileName(name), parts, true);
      return seen.filter((p) => !p.endsWith('.tmp'));
    };
    assert.deepEqual(fsyncs('run-1|0000000001'), [state, hosts], 'the state directory as hosts/ is made, hosts/ once the file is renamed');
    assert.deepEqual(fsyncs('run-1|0000000002'), [hosts]);
  });
});
