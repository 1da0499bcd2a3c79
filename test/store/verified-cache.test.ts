// Tests of verified.cache, what lets a writer skip reading bucket files an
// earlier writer verified: it vouches for files recorded sound and unchanged
// since; not for a file rewritten (even with the same bytes and mtime, and
// even while the writer that read it still runs), nor a values file a merge
// kept without reading it, nor one changed in the
// clock tick the cache was written, nor after another
// commit, nor from a damaged cache; and through the engine, a writer reads
// no unchanged file again yet still refuses a key file damaged since.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Session } from '../../src/engine/session/session.js';
import { isDrumError } from '../../src/errors.js';
import { DrumFs } from '../../src/io/fs.js';
import type { DrumOptions } from '../../src/options.js';
import { readManifest } from '../../src/store/manifest.js';
import { fileIdentity, loadVerified, saveVerified, VERIFIED_FILE } from '../../src/store/verified-cache.js';
import { keyOfString } from '../../src/fingerprint/key.js';
import { flipByte } from '../helpers/damage.js';
import { withDrum } from '../helpers/drum.js';
import { tempDir } from '../helpers/tmp.js';

const O: DrumOptions = { workers: 0, fsync: false, journalKeys: 0 };
const urls = (n: number): string[] => Array.from({ length: n }, (_, i) => `http://h${i % 5}.example/p/${i}`);

/** A merged store of 500 URLs over five hosts (five buckets with key and values files). */
async function store(): Promise<string> {
  const state = join(tempDir(), 'state');
  await withDrum(state, O, (d) => d.add(urls(500)));
  return state;
}

/** The committed state and body as the cache ties itself to them. */
function committed(state: string): { at: { commit: number; stateId: number }; body: NonNullable<ReturnType<typeof readManifest>> } {
  const body = readManifest(state)!;
  return { at: { commit: 7, stateId: 42 }, body };
}

const keyFiles = (state: string): string[] => readManifest(state)!.buckets.flatMap((e) => (e ? [e.file] : [])).sort();

/** The identities of the buckets of `files` as they are now, as a writer vouches for them. */
function vouchedNow(state: string, files: string[]): Map<string, Uint32Array> {
  const m = new Map<string, Uint32Array>();
  for (const e of readManifest(state)!.buckets) {
    if (!e || !files.includes(e.file)) continue;
    m.set(e.file, fileIdentity(join(state, e.file)));
    if (e.values !== undefined) m.set(e.values.file, fileIdentity(join(state, e.values.file)));
  }
  return m;
}

/** The key files of the buckets a loaded cache vouches for, sorted. */
const keyFilesIn = (m: Map<string, Uint32Array>): string[] => [...m.keys()].filter((f) => f.endsWith('.keys')).sort();

/** Sets the cache file's mtime well after every file's ctime, as if it were written a second later. */
function writtenLater(state: string): void {
  const t = new Date(Date.now() + 1000);
  fs.utimesSync(join(state, VERIFIED_FILE), t, t);
}

describe('verified.cache', () => {
  it('vouches for every bucket recorded sound whose files are unchanged, and only those', async () => {
    const state = await store();
    const { at, body } = committed(state);
    const files = keyFiles(state);
    assert.equal(files.length, 5);
    saveVerified(new DrumFs(), state, at, body, vouchedNow(state, files.slice(1)));
    writtenLater(state);
    assert.deepEqual(keyFilesIn(loadVerified(state, at, body)), files.slice(1));
  });

  it('does not vouch for a key or values file rewritten since, even with the same bytes and mtime', async () => {
    const state = await store();
    const { at, body } = committed(state);
    saveVerified(new DrumFs(), state, at, body, vouchedNow(state, keyFiles(state)));
    const e0 = body.buckets.find((e) => e !== null && e !== undefined)!;
    const e1 = body.buckets.filter((e) => e !== null && e !== undefined)[1]!;
    for (const f of [e0.file, e1.values!.file]) {
      const p = join(state, f);
      const st = fs.statSync(p);
      fs.writeFileSync(p, fs.readFileSync(p));
      fs.utimesSync(p, st.atime, st.mtime);
    }
    writtenLater(state);
    const got = loadVerified(state, at, body);
    assert.equal(keyFilesIn(got).length, 3);
    assert.equal(got.has(e0.file), false);
    assert.equal(got.has(e1.file), false);
  });

  it('does not vouch for a file changed after it was read or written, even before the cache was saved', async () => {
    const state = await store();
    const { at, body } = committed(state);
    const vouched = vouchedNow(state, keyFiles(state)); // taken when this process read or wrote them
    const p = join(state, keyFiles(state)[1]!);
    const st = fs.statSync(p);
    fs.writeFileSync(p, fs.readFileSync(p)); // a change while the process still runs
    fs.utimesSync(p, st.atime, st.mtime);
    saveVerified(new DrumFs(), state, at, body, vouched);
    writtenLater(state);
    const got = loadVerified(state, at, body);
    assert.equal(keyFilesIn(got).length, 4);
    assert.equal(got.has(keyFiles(state)[1]!), false);
  });

  it('does not vouch for a file changed in the clock tick the cache was written', async () => {
    const state = await store();
    const { at, body } = committed(state);
    saveVerified(new DrumFs(), state, at, body, vouchedNow(state, keyFiles(state)));
    // The cache written no later than the files last changed: each could have changed again unseen.
    const first = join(state, keyFiles(state)[0]!);
    // A millisecond before the file's ctime: utimes takes seconds as a double, which can land up to ~120 ns past a
    // millisecond, and coarse kernel clocks put ctimes on whole ticks, so setting the ctime itself could overshoot it.
    const before = new Date(fs.statSync(first).ctime.getTime() - 1);
    fs.utimesSync(join(state, VERIFIED_FILE), before, before);
    assert.equal(loadVerified(state, at, body).has(keyFiles(state)[0]!), false);
  });

  it('vouches for nothing after another commit, from a damaged cache, or with none', async () => {
    const state = await store();
    const { at, body } = committed(state);
    saveVerified(new DrumFs(), state, at, body, vouchedNow(state, keyFiles(state)));
    writtenLater(state);
    assert.equal(keyFilesIn(loadVerified(state, at, body)).length, 5);
    assert.equal(keyFilesIn(loadVerified(state, { ...at, commit: at.commit + 1 }, body)).length, 0);
    assert.equal(keyFilesIn(loadVerified(state, { ...at, stateId: at.stateId + 1 }, body)).length, 0);
    flipByte(join(state, VERIFIED_FILE), fs.statSync(join(state, VERIFIED_FILE)).size - 3);
    writtenLater(state);
    assert.equal(keyFilesIn(loadVerified(state, at, body)).length, 0);
    fs.rmSync(join(state, VERIFIED_FILE));
    assert.equal(keyFilesIn(loadVerified(state, at, body)).length, 0);
  });

  it('lets the next writer skip every unchanged bucket file the last one verified or wrote', async () => {
    const state = await store();
    writtenLater(state);
    const s = await Session.open(state, O);
    try {
      const r = s.verifyBeforeWrite();
      assert.equal(r.ok, true);
      assert.equal(r.filesChecked, 0);
    } finally {
      await s.close();
    }
  });

  it('does not vouch for a values file a merge kept without reading it, so the next writer still refuses its damage', async () => {
    const state = await store();
    const m = readManifest(state)!;
    // The bucket of host h0's URLs: the top bits of their key.
    const bucket = keyOfString('http://h0.example/p/0', m.params.hostBits)[0]! >>> (32 - Math.log2(m.params.buckets));
    const e = m.buckets[bucket]!;
    flipByte(join(state, e.values!.file), e.values!.bytes >> 1);
    for (const f of ['tiers.cache', 'memo.cache']) fs.rmSync(join(state, f), { force: true }); // so h0's repeats reach the merge
    // A library process: h0's links are all stored (its key file is rewritten, its values file kept unread), h1's are new.
    await withDrum(state, O, async (d) => {
      await d.add([...urls(500).filter((u) => u.startsWith('http://h0.')).slice(0, 50), 'http://h1.example/new/1', 'http://h1.example/new/2']);
    });
    const after = readManifest(state)!.buckets[bucket]!;
    assert.notEqual(after.file, e.file, 'the merge rewrote the key file');
    assert.equal(after.values!.file, e.values!.file, 'and kept the values file');
    writtenLater(state);
    const before = fs.readFileSync(join(state, 'MANIFEST'));
    const input = join(state, '..', 'more.txt');
    fs.writeFileSync(input, 'http://h2.example/new/3\n');
    await assert.rejects(withDrum(state, O, (d) => d.ingest({ inputs: [input], outDir: join(state, '..', 'out') })), (x) => isDrumError(x, 'DRUM_CORRUPT_FILE'));
    assert.deepEqual(fs.readFileSync(join(state, 'MANIFEST')), before);
  });

  it('still refuses, before writing anything, a key file damaged after the last writer verified it', async () => {
    const state = await store();
    writtenLater(state); // so only the damage, not the clock, can make the file be read
    const file = join(state, keyFiles(state)[2]!);
    flipByte(file, fs.statSync(file).size - 20);
    const before = fs.readdirSync(state).sort();
    const input = join(state, '..', 'links.txt');
    fs.writeFileSync(input, 'http://new.example/\n');
    const out = join(state, '..', 'out');
    await assert.rejects(withDrum(state, O, (d) => d.ingest({ inputs: [input], outDir: out })), (e) => isDrumError(e, 'DRUM_CORRUPT_FILE') && e.file === file);
    assert.deepEqual(fs.readdirSync(state).sort(), before);
    assert.equal(fs.existsSync(out), false);
  });
});
