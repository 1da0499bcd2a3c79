// End-to-end test of `drum ingest --graph` on the real bin/drum and the
// bundled Heritrix outlinks sample (data/archive-org-2008-outlinks.tsv.gz):
// the pairs of graph-NNNNN.bin, turned back into URLs with `drum url`, are
// the rows' canonical (source, target) as `drum canonicalize` gives them, in
// input order; sources are never among the new URLs; a second run reads the
// file again and writes the same pairs with nothing new. Input that is not
// TSV is refused before a run starts, a file's or a stream's (stdin, a pipe
// given by name), and before a new store is created for it; TSV on a stream
// gives the pairs the file gives.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { bin, distRoot, drum, repoRoot, uniques } from '../helpers/cli.js';
import { EXIT_STATUS } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';

const SAMPLE = join(repoRoot, 'data', 'archive-org-2008-outlinks.tsv.gz');
const FAST = ['--no-fsync', '--no-progress', '--workers', '0'];

function pairsOf(dir: string): bigint[][] {
  const out: bigint[][] = [];
  for (const f of readdirSync(dir).filter((n) => n.startsWith('graph-')).sort()) {
    const b = readFileSync(join(dir, f));
    for (let at = 0; at < b.length; at += 16) out.push([b.readBigUInt64LE(at), b.readBigUInt64LE(at + 8)]);
  }
  return out;
}

/** `drum canonicalize` of each line of `text` (one output line per input line). */
async function canonical(dir: string, name: string, text: string, format: string): Promise<string[]> {
  writeFileSync(join(dir, name), text);
  const r = await drum(['canonicalize', '--format', format, name], { cwd: dir });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').slice(0, -1);
}

/** bin/drum with `input` on a shell pipe (a FIFO, which /dev/stdin names; the test runner's own pipes are sockets). */
function piped(input: string, args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  writeFileSync(join(cwd, 'piped.in'), input);
  const quoted = args.map((a) => `'${a}'`).join(' ');
  return spawnSync('sh', ['-c', `cat piped.in | "${process.execPath}" "${bin}" ${quoted}`], { cwd, env: { ...process.env, DRUM_DIST_DIR: distRoot, DRUM_STATE: '' }, encoding: 'utf8' });
}

describe('drum ingest --graph', () => {
  it('writes each row\'s (source docID, target docID) in input order, which drum url turns back into the row\'s canonical URLs', async () => {
    const dir = tempDir();
    const text = gunzipSync(readFileSync(SAMPLE)).toString('utf8');
    const rows = text.split('\n').slice(0, -1);
    const targets = await canonical(dir, 't.tsv', text, 'tsv');
    const sources = await canonical(dir, 's.txt', rows.map((l) => `${l.split('\t')[0]}\n`).join(''), 'lines');
    assert.equal(targets.length, rows.length);
    assert.equal(sources.length, rows.length);
    const want: string[] = [];
    for (let i = 1; i < rows.length; i++) {
      if (!targets[i]!.startsWith('!') && !sources[i]!.startsWith('!')) want.push(`${sources[i]}\t${targets[i]}`);
    }
    assert.ok(want.length > 5000);

    const r = await drum(['ingest', ...FAST, '--graph', '--json', '--out', 'o', SAMPLE], { cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.deepEqual(report.graph.files, ['graph-00001.bin']);
    assert.equal(report.graph.pairs, want.length);
    assert.equal(report.graph.rowsWithoutPair, rows.length - 1 - want.length);
    const pairs = pairsOf(join(dir, 'o'));
    const ids = [...new Set(pairs.flat())];
    const u = await drum(['url', '-', '--quiet'], { cwd: dir, input: ids.map((x) => `${x}\n`).join('') });
    assert.equal(u.status, 0, u.stderr);
    const urlOf = new Map(u.stdout.split('\n').slice(0, -1).map((l) => [BigInt(l.split('\t')[0]!), l.split('\t')[1]!]));
    assert.deepEqual(pairs.map(([s, t]) => `${urlOf.get(s!)}\t${urlOf.get(t!)}`), want);

    // Sources are stored, never emitted: every new URL is some row's target.
    const fresh = uniques(join(dir, 'o'));
    const targetSet = new Set(targets.filter((t) => !t.startsWith('!')));
    assert.ok(fresh.length > 0);
    assert.ok(fresh.every((x) => targetSet.has(x)));
    assert.equal(fresh.length, new Set(fresh).size);

    // A second run reads the same file again (not skipped): the same pairs, nothing new; the summary names the graph file.
    const again = await drum(['ingest', ...FAST, '--graph', '--out', 'o2', SAMPLE], { cwd: dir });
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /graph pairs +[\d,]+ \(/);
    assert.match(again.stdout, /graph in .*graph-00001\.bin/);
    assert.deepEqual(pairsOf(join(dir, 'o2')), pairs);
    assert.deepEqual(uniques(join(dir, 'o2')), []);
  });

  it('refuses a keys-only store with DRUM_NEEDS_UPGRADE, as --revisit-after does', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.tsv'), 'http://a.example/\thttp://b.example/\n');
    const first = await drum(['ingest', ...FAST, '--quiet', '--no-values', 'a.tsv'], { cwd: dir });
    assert.equal(first.status, 0, first.stderr);
    const g = await drum(['ingest', ...FAST, '--graph', '--force', 'a.tsv'], { cwd: dir });
    const rv = await drum(['ingest', ...FAST, '--revisit-after', '1d', '--force', 'a.tsv'], { cwd: dir });
    assert.notEqual(g.status, 0);
    assert.equal(g.status, rv.status, g.stderr);
    assert.match(g.stderr, /DRUM_NEEDS_UPGRADE|upgrade/);
  });

  it('refuses a file that reads as plain lines before the run starts: no run recorded, nothing to abandon next time', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.tsv'), 'http://a.example/\thttp://b.example/\n');
    writeFileSync(join(dir, 'plain.txt'), 'http://c.example/\nhttp://d.example/\n');
    assert.equal((await drum(['ingest', ...FAST, '--quiet', 'a.tsv'], { cwd: dir })).status, 0);
    const manifest = readFileSync(join(dir, 'drum-state', 'MANIFEST'));
    const g = await drum(['ingest', ...FAST, '--graph', 'plain.txt'], { cwd: dir });
    assert.equal(g.status, EXIT_STATUS.DRUM_BAD_OPTION, g.stderr);
    assert.match(g.stderr, /DRUM_BAD_OPTION.*plain\.txt reads as lines/);
    assert.deepEqual(readFileSync(join(dir, 'drum-state', 'MANIFEST')), manifest);
    const next = await drum(['ingest', ...FAST, '--graph', '--force', 'a.tsv'], { cwd: dir });
    assert.equal(next.status, 0, next.stderr);
    assert.doesNotMatch(next.stderr, /abandon/);
  });

  it('creates no state directory for a refused run: plain lines, or a new keys-only store (--no-values)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.tsv'), 'http://a.example/\thttp://b.example/\n');
    writeFileSync(join(dir, 'plain.txt'), 'http://c.example/\n');
    for (const args of [['--graph', 'plain.txt'], ['--no-values', '--graph', 'a.tsv'], ['--no-values', '--revisit-after', '1d', 'a.tsv']]) {
      const g = await drum(['ingest', ...FAST, '--state', 'new-state', ...args], { cwd: dir });
      assert.equal(g.status, EXIT_STATUS.DRUM_BAD_OPTION, `${args.join(' ')}: ${g.stderr}`);
      assert.ok(!readdirSync(dir).includes('new-state'), `${args.join(' ')} created the state directory`);
    }
  });

  it('refuses stdin, or a pipe given by name, that reads as plain lines before the run starts: no run recorded, nothing to abandon next time', { skip: !existsSync('/dev/stdin') }, async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.tsv'), 'http://a.example/\thttp://b.example/\n');
    assert.equal((await drum(['ingest', ...FAST, '--quiet', 'a.tsv'], { cwd: dir })).status, 0);
    const manifest = readFileSync(join(dir, 'drum-state', 'MANIFEST'));
    const plain = 'http://c.example/\nhttp://d.example/\n';
    for (const name of ['-', '/dev/stdin']) {
      const g = piped(plain, ['ingest', ...FAST, '--graph', name], dir);
      assert.equal(g.status, EXIT_STATUS.DRUM_BAD_OPTION, `${name}: ${g.stderr}`);
      assert.deepEqual(readFileSync(join(dir, 'drum-state', 'MANIFEST')), manifest, `${name} changed the manifest`);
    }
    const runs = await drum(['runs', '--json'], { cwd: dir });
    assert.deepEqual((JSON.parse(runs.stdout) as { status: string }[]).map((x) => x.status), ['complete']);
    const next = await drum(['ingest', ...FAST, '--graph', '--force', 'a.tsv'], { cwd: dir });
    assert.equal(next.status, 0, next.stderr);
    assert.doesNotMatch(next.stderr, /abandon/);
  });

  it('leaves no store behind when --graph reads a stream that is not TSV into a new state', { skip: !existsSync('/dev/stdin') }, async () => {
    const dir = tempDir();
    const plain = 'http://c.example/\nhttp://d.example/\n';
    const runs: [string, () => Promise<{ status: number | null; stderr: string }> | { status: number | null; stderr: string }][] = [
      ['stdin', () => drum(['ingest', ...FAST, '--graph', '--state', 's-stdin', '-'], { cwd: dir, input: plain })],
      ['gz', () => drum(['ingest', ...FAST, '--graph', '--state', 's-gz', '-'], { cwd: dir, input: gzipSync(plain) })],
      ['named', () => piped(plain, ['ingest', ...FAST, '--graph', '--state', 's-named', '/dev/stdin'], dir)],
      ['empty', () => piped(plain, ['ingest', ...FAST, '--graph', '--state', 's-empty', '-'], dir)],
    ];
    mkdirSync(join(dir, 's-empty'));
    for (const [tag, run] of runs) {
      const g = await run();
      assert.equal(g.status, EXIT_STATUS.DRUM_BAD_OPTION, `${tag}: ${g.stderr}`);
      assert.match(g.stderr, /DRUM_BAD_OPTION/, tag);
    }
    // The state directory that was there (empty) stays empty; the others were never made.
    assert.deepEqual(readdirSync(join(dir, 's-empty')), []);
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('s-')), ['s-empty']);
  });

  it('writes the same pairs and new URLs for TSV on stdin, gzip on stdin and a pipe given by name as for the file', { skip: !existsSync('/dev/stdin') }, async () => {
    const dir = tempDir();
    const gz = readFileSync(SAMPLE);
    const text = gunzipSync(gz).toString('utf8');
    writeFileSync(join(dir, 'sample.gz'), gz);
    const file = await drum(['ingest', ...FAST, '--quiet', '--graph', '--state', 's-file', '--out', 'o-file', 'sample.gz'], { cwd: dir });
    assert.equal(file.status, 0, file.stderr);
    const want = pairsOf(join(dir, 'o-file'));
    assert.ok(want.length > 5000);
    const runs: [string, string | Buffer, string][] = [['stdin', text, '-'], ['gz', gz, '-'], ['named', text, '/dev/stdin']];
    for (const [tag, input, name] of runs) {
      const r = name === '-'
        ? await drum(['ingest', ...FAST, '--quiet', '--graph', '--state', `s-${tag}`, '--out', `o-${tag}`, '-'], { cwd: dir, input })
        : piped(input as string, ['ingest', ...FAST, '--quiet', '--graph', '--state', `s-${tag}`, '--out', `o-${tag}`, name], dir);
      assert.equal(r.status, 0, `${tag}: ${r.stderr}`);
      assert.deepEqual(pairsOf(join(dir, `o-${tag}`)), want, `${tag}: pairs`);
      assert.deepEqual(uniques(join(dir, `o-${tag}`)), uniques(join(dir, 'o-file')), `${tag}: new URLs`);
    }
  });
});
