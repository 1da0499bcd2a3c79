// Stores with and without values through the real bin/drum: a keys-only
// store (--no-values) keeps version-1 key files only and is upgraded by
// `drum upgrade`; a store written by a drum without values (its manifest has
// no valueBytes) is upgraded by its next ingest with a notice on stderr;
// verify checks the values' bytes.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DrumFs } from '../../src/io/fs.js';
import { readManifest, writeManifest } from '../../src/store/manifest.js';
import { drum } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { readUrlValues } from '../helpers/values.js';
import { keyOfString } from '../../src/fingerprint/key.js';

const FIRST = ['http://a.example/1', 'http://b.example/2', 'http://c.example/3', 'http://a.example/4'];
const SECOND = ['http://a.example/1', 'http://d.example/5', 'http://e.example/6'];

function input(dir: string, name: string, urls: string[]): string {
  const p = join(dir, name);
  fs.writeFileSync(p, urls.map((u) => `${u}\n`).join(''));
  return p;
}

/** The store's URLs in key order, as the upgrade numbers them. */
function keyOrder(urls: string[]): string[] {
  const k = (u: string): bigint => {
    const [hi, lo] = keyOfString(u, 24);
    return (BigInt(hi) << 32n) | BigInt(lo);
  };
  // Buckets are the keys' top bits, so bucket order then key order is key order.
  return [...urls].sort((a, b) => (k(a) < k(b) ? -1 : k(a) > k(b) ? 1 : 0));
}

describe('drum upgrade and stores without values', () => {
  it('keeps a --no-values store keys-only, then drum upgrade numbers its URLs in key order and later URLs after them', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    let r = await drum(['ingest', '--state', state, '--no-values', '--no-fsync', '--quiet', input(dir, 'a.txt', FIRST)]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(fs.readdirSync(join(state, 'store')).filter((f) => f.endsWith('.vals')), []);
    assert.equal(readManifest(state)!.params.valueBytes, 0);
    r = await drum(['ingest', '--state', state, '--no-fsync', '--quiet', input(dir, 'b.txt', ['http://z.example/0'])]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '', 'a store created keys-only is not upgraded by a write');
    assert.equal(readManifest(state)!.params.valueBytes, 0);
    r = await drum(['upgrade', '--state', state, '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { upgraded: true, urls: 5, docIDs: 5 });
    const stored = [...FIRST, 'http://z.example/0'];
    const values = readUrlValues(state);
    keyOrder(stored).forEach((u, i) => {
      const [hi, lo] = keyOfString(u, 24);
      assert.deepEqual(values.get(`${hi}:${lo}`), { docID: i, firstRun: 0, lastEmitted: 0, hostCheck: 0, flags: 0 }, u);
    });
    r = await drum(['ingest', '--state', state, '--no-fsync', '--quiet', input(dir, 'c.txt', SECOND)]);
    assert.equal(r.status, 0, r.stderr);
    const after = readUrlValues(state);
    const id = (u: string): number | undefined => after.get(keyOfString(u, 24).join(':'))?.docID;
    assert.deepEqual(SECOND.map(id), [values.get(keyOfString(SECOND[0]!, 24).join(':'))!.docID, 5, 6]);
    assert.equal((await drum(['verify', '--state', state, '--quiet'])).status, 0);
    r = await drum(['upgrade', '--state', state]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /already a store with values/);
  });

  it('upgrades a store written without values on its next ingest, saying so on stderr', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    // A drum without values had no key journal either: its rounds merged.
    let r = await drum(['ingest', '--state', state, '--no-values', '--journal-keys', '0', '--no-fsync', '--quiet', input(dir, 'a.txt', FIRST)]);
    assert.equal(r.status, 0, r.stderr);
    // What a drum without values wrote: no valueBytes at all.
    const body = readManifest(state)!;
    delete body.params.valueBytes;
    writeManifest(new DrumFs(), state, body, false);
    r = await drum(['ingest', '--state', state, '--no-fsync', '--quiet', input(dir, 'c.txt', SECOND)]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /upgraded to a store with values.*4 URLs got docIDs 0\.\.3 in key order/);
    const m = readManifest(state)!;
    assert.equal(m.params.valueBytes, 24);
    assert.equal(m.docIDs, 6);
    assert.equal(readUrlValues(state).size, 6);
    assert.equal((await drum(['verify', '--state', state, '--quiet'])).status, 0);
  });

  it('has verify report a values file whose bytes changed', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    // A merging round writes the values files (a journal round keeps its values in the key journal).
    assert.equal((await drum(['ingest', '--state', state, '--journal-keys', '0', '--no-fsync', '--quiet', input(dir, 'a.txt', FIRST)])).status, 0);
    const vals = fs.readdirSync(join(state, 'store')).filter((f) => f.endsWith('.vals'));
    assert.equal(vals.length > 0, true);
    const p = join(state, 'store', vals[0]!);
    const b = fs.readFileSync(p);
    b[40] = b[40]! ^ 0xff;
    fs.writeFileSync(p, b);
    const r = await drum(['verify', '--state', state, '--json']);
    assert.notEqual(r.status, 0);
    const v = JSON.parse(r.stdout) as { ok: boolean; problems: { code: string; file: string }[] };
    assert.equal(v.ok, false);
    assert.deepEqual(v.problems.map((x) => [x.code, x.file.endsWith('.vals')]), [['DRUM_CORRUPT_FILE', true]]);
  });
});
