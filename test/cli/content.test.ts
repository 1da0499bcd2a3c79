// drum content end to end with the real binary: a generated WARC with known
// duplicate groups; the first run reports every exact copy (the earliest
// copy's URL, distance 0) and the wrong payload digests; a second run over
// stdin finds every document seen in the first; the suggested rules make
// drum ingest --rules fold the exact copies' URL variants to one URL per
// article; --verify finds a damaged table; a near method or threshold other
// than a store was created with is DRUM_POLICY_MISMATCH and changes nothing.

import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { drum, uniques } from '../helpers/cli.js';
import { EXIT_STATUS } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';
import { generateWarc, parseTruth, type GenWarcMeta, type TruthRow } from '../../scripts/gen-warc.js';

/** Every file of a state directory but the writer lock, with its size and mtime. */
function snapshot(state: string): string[] {
  return fs.readdirSync(state, { recursive: true, encoding: 'utf8' }).filter((f) => !f.startsWith('writer-lock')).sort().map((f) => {
    const s = fs.statSync(join(state, f));
    return s.isDirectory() ? f : `${f} ${s.size} ${s.mtimeMs}`;
  });
}

describe('drum content', () => {
  let dir = '';
  let warc = '';
  let meta: GenWarcMeta;
  let truth: TruthRow[];
  before(() => {
    dir = tempDir('drum-content-e2e-');
    warc = join(dir, 'g.warc.gz');
    meta = generateWarc({ docs: 300, seed: 4, out: warc });
    truth = parseTruth(fs.readFileSync(`${warc}.truth.tsv`, 'utf8'));
  });

  it('reports exact copies with the earliest copy, and a document seen in an earlier run as a duplicate', async () => {
    const state = join(dir, 'st');
    const r1 = await drum(['content', '--state', state, '--out', join(dir, 'o1'), '--no-fsync', warc]);
    assert.equal(r1.status, 0, r1.stderr);
    assert.match(r1.stderr, /300 documents/);
    const lines = fs.readFileSync(join(dir, 'o1', 'content-duplicates.tsv'), 'utf8').trim().split('\n').map((l) => l.split('\t'));
    const firstOfGroup = new Map<number, string>();
    const wantExact: string[][] = [];
    for (const t of truth) {
      if (t.role !== 'original' && t.role !== 'exact') continue;
      const f = firstOfGroup.get(t.group);
      if (f === undefined) firstOfGroup.set(t.group, t.url);
      else wantExact.push([t.url, 'exact', f, '0']);
    }
    assert.deepEqual(lines.filter((l) => l[1] === 'exact'), wantExact);
    const near = lines.filter((x) => x[1] === 'near');
    for (const l of near) assert.ok(Number(l[3]) >= 0.5 && Number(l[3]) <= 1, l.join(' ')); // estimated Jaccard (1: the same visible words, other bytes)
    const groupOf = new Map(truth.map((t) => [t.url, t.group]));
    for (const l of near) assert.equal(groupOf.get(l[0]!), groupOf.get(l[2]!), l.join(' '));
    const seen = new Set<number>();
    const withCopy = truth.filter((t) => t.role !== 'unique' && (seen.has(t.group) || (seen.add(t.group), false))).length;
    assert.ok(lines.length >= 0.9 * withCopy, `${lines.length} lines for ${withCopy} documents with an earlier copy`);
    const rep = JSON.parse(fs.readFileSync(join(dir, 'o1', 'content-report.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(rep.documents, 300);
    assert.equal(rep.exactDuplicates, wantExact.length);
    assert.deepEqual(rep.payloadDigest, { match: 300 - meta.wrongDigests - meta.absentDigests, mismatch: meta.wrongDigests, absent: meta.absentDigests, unchecked: 0 });

    const r2 = await drum(['content', '--state', state, '--out', join(dir, 'o2'), '--no-fsync', '--json', '-'], { input: fs.readFileSync(warc) });
    assert.equal(r2.status, 0, r2.stderr);
    const rep2 = JSON.parse(r2.stdout) as { documents: number; exactDuplicates: number; storeDocuments: number };
    assert.deepEqual([rep2.documents, rep2.exactDuplicates, rep2.storeDocuments], [300, 300, 600]);
    const again = fs.readFileSync(join(dir, 'o2', 'content-duplicates.tsv'), 'utf8').trim().split('\n').map((l) => l.split('\t'));
    assert.deepEqual(again.map((l) => l[0]), truth.map((t) => t.url));

    const v = await drum(['content', '--verify', '--state', state]);
    assert.equal(v.status, 0, v.stdout + v.stderr);
    const edir = join(state, 'content', 'exact');
    const keys = fs.readdirSync(edir).find((f) => f.endsWith('.keys'))!;
    const b = fs.readFileSync(join(edir, keys));
    b[40] ^= 0xff; // a key of the exact map's bucket file
    fs.writeFileSync(join(edir, keys), b);
    const bad = await drum(['content', '--verify', '--state', state]);
    assert.equal(bad.status, 11);
    assert.match(bad.stdout, /NOT SOUND/);
  });

  it('finds near copies with SimHash when the store is made with --near simhash', async () => {
    const state = join(dir, 'st-sim');
    const r = await drum(['content', '--near', 'simhash', '--state', state, '--out', join(dir, 'os1'), '--no-fsync', '--json', warc]);
    assert.equal(r.status, 0, r.stderr);
    const rep = JSON.parse(r.stdout) as { near: string; threshold: number; exactDuplicates: number };
    assert.deepEqual([rep.near, rep.threshold], ['simhash', 3]);
    for (const l of fs.readFileSync(join(dir, 'os1', 'content-duplicates.tsv'), 'utf8').trim().split('\n').map((x) => x.split('\t'))) {
      if (l[1] === 'near') assert.ok(Number.isInteger(Number(l[3])) && Number(l[3]) <= 3, l.join(' '));
    }
    assert.ok(!fs.existsSync(join(state, 'content', 'docs.sigs')));
    const bad = await drum(['content', '--min-jaccard', '1.5', '--state', join(dir, 'st-bad'), warc]);
    assert.match(bad.stderr, /DRUM_BAD_OPTION/);
    assert.equal((await drum(['content', '--threshold', '3', '--state', state, '--out', join(dir, 'os3'), '--no-fsync', warc])).status, 0);
  });

  it('refuses --near, --threshold or --min-jaccard other than the content store was created with (DRUM_POLICY_MISMATCH), changing nothing', async () => {
    const sim = join(dir, 'st-fixed-sim');
    const min = join(dir, 'st-fixed-min');
    assert.equal((await drum(['content', '--near', 'simhash', '--threshold', '2', '--quiet', '--state', sim, '--no-fsync', warc])).status, 0);
    assert.equal((await drum(['content', '--quiet', '--state', min, '--no-fsync', warc])).status, 0);
    const before = [snapshot(sim), snapshot(min)];
    const mismatches: [string, string[]][] = [
      [sim, ['--near', 'minhash']], [sim, ['--threshold', '3']], [sim, ['--near', 'simhash', '--threshold', '1']], [sim, ['--min-jaccard', '0.9']],
      [min, ['--near', 'simhash']], [min, ['--threshold', '3']],
    ];
    for (const [state, args] of mismatches) {
      const r = await drum(['content', ...args, '--state', state, '--no-fsync', warc]);
      assert.equal(r.status, EXIT_STATUS.DRUM_POLICY_MISMATCH, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^drum: DRUM_POLICY_MISMATCH: /m);
    }
    // Options that contradict each other whatever the store: a usage error, as on a new store.
    for (const [state, args] of [[sim, ['--near', 'minhash', '--threshold', '2']], [min, ['--near', 'simhash', '--min-jaccard', '0.5']]] as const) {
      const r = await drum(['content', ...args, '--state', state, '--no-fsync', warc]);
      assert.equal(r.status, EXIT_STATUS.DRUM_BAD_OPTION, `${args.join(' ')}: ${r.stderr}`);
    }
    const fresh = await drum(['content', '--threshold', '2', '--state', join(dir, 'st-fixed-new'), '--no-fsync', warc]);
    assert.equal(fresh.status, EXIT_STATUS.DRUM_BAD_OPTION, 'a new store is MinHash unless --near simhash');
    assert.ok(!fs.existsSync(join(dir, 'st-fixed-new')));
    assert.deepEqual([snapshot(sim), snapshot(min)], before, 'nothing written, no run directory made');
    // The store's own, given or not, are fine; any run of a MinHash store chooses its --min-jaccard.
    for (const [state, args] of [[sim, ['--near', 'simhash', '--threshold', '2']], [sim, []], [min, ['--near', 'minhash', '--min-jaccard', '0.9']]] as const) {
      const r = await drum(['content', ...args, '--quiet', '--state', state, '--no-fsync', warc]);
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    }
  });

  it('has drum stats and drum verify report the content store, with or without a URL store', async () => {
    const state = join(dir, 'st-stats');
    assert.equal((await drum(['content', '--quiet', '--no-fsync', '--state', state, '--out', join(dir, 'os3'), warc])).status, 0);
    const st = await drum(['stats', '--state', state]);
    assert.equal(st.status, 0, st.stderr);
    assert.match(st.stdout, /content store \(drum content\)\n {2}300 documents from 1 run, near copies by minhash/);
    const js = JSON.parse((await drum(['stats', '--json', '--state', state])).stdout) as { content: { documents: number; near: string } };
    assert.deepEqual([js.content.documents, js.content.near], [300, 'minhash']);
    const v = await drum(['verify', '--state', state]);
    assert.equal(v.status, 0, v.stdout + v.stderr);
    assert.match(v.stdout, /content store sound: 300 documents/);
    fs.writeFileSync(join(dir, 'one-url.txt'), 'http://a.example/\n');
    assert.equal((await drum(['ingest', '--quiet', '--no-progress', '--no-fsync', '--state', state, '--out', join(dir, 'os4'), join(dir, 'one-url.txt')])).status, 0);
    const sigs = join(state, 'content', 'docs.sigs');
    const b = fs.readFileSync(sigs);
    b[4000] ^= 1;
    fs.writeFileSync(sigs, b);
    const bad = await drum(['verify', '--state', state]);
    assert.equal(bad.status, 11, bad.stdout + bad.stderr);
    assert.match(bad.stdout, /^sound: .*\ncontent store NOT SOUND:\n.*signatures.*CRC mismatch/);
  });

  it('lets drum ingest create its URL store in a state directory that drum content made first', async () => {
    const state = join(dir, 'st3');
    assert.equal((await drum(['content', '--quiet', '--no-fsync', '--state', state, '--out', join(dir, 'o4'), warc])).status, 0);
    fs.writeFileSync(join(dir, 'one.txt'), 'http://a.example/\n');
    const r = await drum(['ingest', '--quiet', '--no-progress', '--no-fsync', '--state', state, '--out', join(dir, 'o5'), join(dir, 'one.txt')]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal((await drum(['verify', '--quiet', '--state', state])).status, 0);
    assert.equal((await drum(['content', '--verify', '--quiet', '--state', state])).status, 0);
  });

  it('suggests rules that make drum ingest --rules fold the exact copies URL variants', async () => {
    const rules = join(dir, 'rules.txt');
    const r = await drum(['content', '--state', join(dir, 'st2'), '--out', join(dir, 'o3'), '--no-fsync', '--quiet', '--suggest-rules', rules, '--min-support', '1', warc]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(fs.readFileSync(rules, 'utf8'), /^host www\.site\d+\.example strip-param ref$/m);
    const variants = truth.filter((t) => t.role === 'original' || t.role === 'exact');
    const groups = new Set(truth.filter((t) => t.role === 'exact').map((t) => t.group));
    const urls = variants.filter((t) => groups.has(t.group)).map((t) => t.url);
    fs.writeFileSync(join(dir, 'urls.txt'), urls.join('\n') + '\n');
    const plain = await drum(['ingest', '--quiet', '--no-progress', '--no-fsync', '--state', join(dir, 'i1'), '--out', join(dir, 'i1o'), join(dir, 'urls.txt')]);
    assert.equal(plain.status, 0, plain.stderr);
    const folded = await drum(['ingest', '--quiet', '--no-progress', '--no-fsync', '--rules', rules, '--state', join(dir, 'i2'), '--out', join(dir, 'i2o'), join(dir, 'urls.txt')]);
    assert.equal(folded.status, 0, folded.stderr);
    assert.ok(uniques(join(dir, 'i1o')).length > groups.size);
    assert.equal(uniques(join(dir, 'i2o')).length, groups.size);
  });

  it('keeps the whole records of a .warc.gz cut short, reports the break and exits 14; the store verifies and a missing input fails first', async () => {
    const dir = tempDir();
    const cut = join(dir, 'cut.warc.gz');
    const whole = fs.readFileSync(warc);
    fs.writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.6)));
    const state = join(dir, 'state');
    const r = await drum(['content', '--state', state, '--out', join(dir, 'o'), '--no-fsync', '--json', cut]);
    assert.equal(r.status, EXIT_STATUS.DRUM_INPUT, r.stderr);
    assert.match(r.stderr, /DRUM_INPUT: .*cut\.warc\.gz/);
    const rep = JSON.parse(r.stdout) as { documents: number; inputErrors: { path: string; code: string }[] };
    assert.ok(rep.documents > 0 && rep.documents < 300, `${rep.documents} documents before the break`);
    assert.deepEqual(rep.inputErrors.map((e) => [e.path, e.code]), [[cut, 'DRUM_INPUT']]);
    const text = await drum(['content', '--state', join(dir, 'state2'), '--no-fsync', cut]);
    assert.equal(text.status, EXIT_STATUS.DRUM_INPUT, text.stderr);
    assert.match(text.stderr, /^content: .*; 1 damaged input read only up to the damage\n/m, 'the summary says the input was damaged');
    assert.equal((await drum(['content', '--verify', '--state', state])).status, 0);
    const missing = await drum(['content', '--state', join(dir, 'other'), '--no-fsync', join(dir, 'nosuch.warc')]);
    assert.equal(missing.status, EXIT_STATUS.DRUM_INPUT, missing.stderr);
    assert.equal(fs.existsSync(join(dir, 'other', 'content')), false, 'no store made for a missing input');
  });
});
