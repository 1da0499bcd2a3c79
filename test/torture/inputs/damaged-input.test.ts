// Damaged inputs cut at many points: a gzip link list and .warc.gz files
// (the real Heritrix WARC recompressed as one gzip stream and as shipped, one
// member per record, when ../shared/datasets is present; a synthetic one
// always). At every cut, the complete lines (or the links of the whole WARC
// records) drum reads before DRUM_INPUT must equal what a reference reader
// decodes: zlib's inflate with Z_SYNC_FLUSH (everything up to the cut), cut
// to its last complete line, or to the records that end before the cut. A few
// cuts go through the real bin/drum: its new URLs equal the reference's.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { constants as zlibConstants, gunzipSync, gzipSync } from 'node:zlib';
import { EXIT_STATUS, isDrumError } from '../../../src/errors.js';
import { readInput } from '../../../src/input/read.js';
import { WarcRecordReader, type WarcEvent } from '../../../src/input/warc/records.js';
import { flatten } from '../../input/helpers.js';
import { htmlRecord } from '../../input/warc/helpers.js';
import { sharedData } from '../../helpers/tmp.js';
import { uniques } from '../../helpers/cli.js';
import { drum, haveEngine, rng, tempRoot, writeLinks } from '../harness.js';
import type { LineChunk } from '../../../src/input/types.js';

const READ = { format: 'auto' as const, maxLineBytes: 2048, chunkBytes: 64 * 1024 };
/** Cut points per file: spread evenly plus seeded random ones. */
const EVEN_CUTS = 24;
const RANDOM_CUTS = 16;
const GZIP_CUTS = EVEN_CUTS + RANDOM_CUTS;
/** Fewer for the real WARC (2.5 MB compressed, read whole at every cut). */
const REAL_EVEN = 12;
const REAL_RANDOM = 8;

let root = '';
before(() => {
  root = tempRoot('drum-damaged-');
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

function cutPoints(size: number, seed: number, even = EVEN_CUTS, random = RANDOM_CUTS): number[] {
  const r = rng(seed);
  const at = Array.from({ length: even }, (_, k) => Math.floor(((k + 1) * size) / (even + 1)));
  for (let k = 0; k < random; k++) at.push(1 + Math.floor(r() * (size - 2)));
  return at;
}

/** Everything zlib inflates from a cut stream (multi-member too), up to the cut. */
function inflatePrefix(cut: Buffer): Buffer {
  return gunzipSync(cut, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
}

/** Reads one input, returning its chunks and the error it ended with (null if none). */
async function readAll(path: string): Promise<{ chunks: LineChunk[]; error: unknown }> {
  const chunks: LineChunk[] = [];
  try {
    for await (const c of readInput({ path }, 0, READ)) chunks.push(c);
  } catch (e) {
    return { chunks, error: e };
  }
  return { chunks, error: null };
}

/** Record end offsets (decompressed) of a whole WARC, by the record reader itself. */
function recordEnds(whole: Buffer): number[] {
  const reader = new WarcRecordReader({ want: () => false, maxRecordBytes: 1 << 24, headBytes: 1 << 16 });
  const events: WarcEvent[] = [];
  reader.push(whole, events);
  reader.end(events);
  return events.map((e) => e.endOffset);
}

async function checkWarcCuts(name: string, gz: Buffer, cuts: number[]): Promise<number> {
  const whole = gunzipSync(gz);
  const ends = recordEnds(whole);
  const file = join(root, name);
  fs.writeFileSync(file, gz);
  const full = flatten((await readAll(file)).chunks).links;
  let checked = 0;
  for (const at of cuts) {
    const cut = gz.subarray(0, at);
    fs.writeFileSync(file, cut);
    const prefix = inflatePrefix(cut).length;
    const records = ends.filter((e) => e <= prefix).length;
    const got = await readAll(file);
    if (prefix < 5) continue; // too little to tell WARC from text: not a WARC input yet
    assert.ok(isDrumError(got.error, 'DRUM_INPUT'), `${name} cut at ${at}: ${String(got.error)}`);
    assert.deepEqual(flatten(got.chunks).links, full.filter((l) => l[0] <= records), `${name} cut at ${at} (${records} whole records)`);
    checked++;
  }
  return checked;
}

describe('damaged inputs cut at many points', () => {
  it('reads exactly the complete lines a reference inflate gives, at every cut of a gzip link list', async () => {
    const plain = join(root, 'links.txt');
    writeLinks(plain, 150_000, 7);
    const gz = gzipSync(fs.readFileSync(plain));
    const file = join(root, 'links.txt.gz');
    for (const at of cutPoints(gz.length, 11)) {
      const cut = gz.subarray(0, at);
      fs.writeFileSync(file, cut);
      const text = inflatePrefix(cut);
      const complete = text.lastIndexOf(10) + 1;
      const lines = text.subarray(0, complete).toString('latin1').split('\n').length - 1;
      const got = await readAll(file);
      assert.ok(isDrumError(got.error, 'DRUM_INPUT'), `cut at ${at}: ${String(got.error)}`);
      const last = got.chunks.at(-1);
      assert.equal(last?.endLine ?? 0, lines, `cut at ${at}`);
      assert.equal(last?.endOffset ?? 0, complete, `cut at ${at}`);
    }
  });

  it('reads exactly the links of the whole records, at every cut of a synthetic single-stream .warc.gz', async () => {
    const page = (i: number) => `<html><body>${Array.from({ length: 1 + (i % 17) }, (_, k) => `<a href="/r${i}/l${k}">x</a>`).join('')}</body></html>`;
    const whole = Buffer.concat(Array.from({ length: 400 }, (_, i) => htmlRecord(`http://w${i % 7}.example/p${i}`, page(i))));
    const gz = gzipSync(whole);
    assert.equal(await checkWarcCuts('synthetic.warc.gz', gz, cutPoints(gz.length, 13)), GZIP_CUTS);
  });

  const real = sharedData('heritrix-archive-org-2008/example.warc.gz');
  it('reads exactly the links of the whole records, at every cut of the real Heritrix WARC, as one gzip stream and as shipped', { skip: real === null }, async () => {
    const shipped = fs.readFileSync(real!);
    const single = gzipSync(gunzipSync(shipped));
    assert.equal(await checkWarcCuts('single.warc.gz', single, cutPoints(single.length, 17, REAL_EVEN, REAL_RANDOM)), REAL_EVEN + REAL_RANDOM);
    assert.equal(await checkWarcCuts('members.warc.gz', shipped, cutPoints(shipped.length, 19, REAL_EVEN, REAL_RANDOM)), REAL_EVEN + REAL_RANDOM);
  });

  it('ingests exactly the reference\'s complete lines through bin/drum, in many rounds, at a few cuts', { skip: !haveEngine }, async () => {
    const lines = Array.from({ length: 120_000 }, (_, i) => `http://h${i % 61}.example/d/${i}`);
    const gz = gzipSync(`${lines.join('\n')}\n`);
    for (const share of [0.3, 0.75, 0.97]) {
      const cut = gz.subarray(0, Math.floor(gz.length * share));
      const text = inflatePrefix(cut).toString('latin1');
      const want = text.slice(0, text.lastIndexOf('\n') + 1).split('\n').slice(0, -1);
      const file = join(root, `cut-${share}.gz`);
      fs.writeFileSync(file, cut);
      const out = join(root, `out-${share}`);
      const r = await drum(['ingest', '--no-progress', '--quiet', '--no-fsync', '--merge-every', '15000', '--workers', '1',
        '--state', join(root, `state-${share}`), '--out', out, file], { cwd: root });
      assert.equal(r.status, EXIT_STATUS.DRUM_INPUT, r.stderr);
      assert.deepEqual(uniques(out), want);
    }
  });
});
