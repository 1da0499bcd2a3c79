// End-to-end tests of `drum url` and `drum resolve` on the real bin/drum:
// docIDs given as arguments or on stdin are printed with their URLs in input
// order, rejects are counted with their line numbers, the docIDs are the new
// URLs of the runs in order, and resolve gives them back for URLs (and for
// every whole line of a cut .gz before failing, with its summary line), and
// a directory on stdin is refused, not read as empty.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { constants as zlib, gunzipSync, gzipSync } from 'node:zlib';
import { EXIT_STATUS } from '../../src/errors.js';
import { join } from 'node:path';
import { bin, distRoot, drum, uniques } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const FAST = ['--no-fsync', '--no-progress', '--workers', '0', '--quiet'];

async function store(): Promise<{ dir: string; urls: string[] }> {
  const dir = tempDir();
  writeFileSync(join(dir, 'a.txt'), 'http://a.example/1\nhttp://b.example/2\nhttp://a.example/1\nHTTP://C.example/3#x\n');
  writeFileSync(join(dir, 'b.txt'), 'http://c.example/3\nhttp://d.example/4\nmailto:x@y\nhttp://e.example/5\n');
  for (const f of ['a', 'b']) {
    const r = await drum(['ingest', ...FAST, '--out', `o-${f}`, `${f}.txt`], { cwd: dir });
    assert.equal(r.status, 0, r.stderr);
  }
  return { dir, urls: [...uniques(join(dir, 'o-a')), ...uniques(join(dir, 'o-b'))] };
}

/** Runs bin/drum with a directory as its stdin (`drum url < /`). */
function withDirectoryStdin(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const dirFd = openSync('/', 'r');
  try {
    return spawnSync(process.execPath, [bin, ...args], { cwd, stdio: [dirFd, 'pipe', 'pipe'], encoding: 'utf8', env: { ...process.env, DRUM_DIST_DIR: distRoot, DRUM_STATE: '' } });
  } finally {
    closeSync(dirFd);
  }
}

describe('drum url', () => {
  it('prints docID<TAB>url for the docIDs given, in the order given: the runs\' new URLs in order', async () => {
    const { dir, urls } = await store();
    assert.equal(urls.length, 5);
    const r = await drum(['url', '4', '0', '2', '0'], { cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `4\t${urls[4]}\n0\t${urls[0]}\n2\t${urls[2]}\n0\t${urls[0]}\n`);
    assert.match(r.stderr, /4 docIDs read, 4 printed, 0 rejected/);
  });

  it('reads docIDs from stdin, the first tab-separated field of each line, and counts rejects with their line numbers', async () => {
    const { dir, urls } = await store();
    const r = await drum(['url', '-'], { cwd: dir, input: `1\n\nfive\n3\tanything\n5\n 2 \n99999999999999999999\n` });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `1\t${urls[1]}\n3\t${urls[3]}\n2\t${urls[2]}\n`);
    const said = r.stderr.split('\n').filter((l) => l.includes(': line '));
    assert.deepEqual(said.map((l) => /line (\d+): ([a-z-]+)/.exec(l)!.slice(1)), [['3', 'not-a-docid'], ['5', 'unknown-docid'], ['7', 'not-a-docid']]);
    assert.match(r.stderr, /6 docIDs read, 3 printed, 3 rejected/);
  });

  it('refuses stdin (-) given beside docID arguments with DRUM_BAD_OPTION', async () => {
    const { dir } = await store();
    for (const args of [['-', '-'], ['0', '-', '1']]) {
      const r = await drum(['url', ...args], { cwd: dir, input: '0\n' });
      assert.equal(r.status, EXIT_STATUS.DRUM_BAD_OPTION, `${args.join(' ')}: ${r.stderr}`);
    }
  });

  it('refuses a directory on stdin with DRUM_INPUT, where it read as no docIDs', async () => {
    const { dir } = await store();
    const r = withDirectoryStdin(['url', '-'], dir);
    assert.equal(r.status, EXIT_STATUS.DRUM_INPUT, r.stderr);
    assert.match(r.stderr, /^drum: DRUM_INPUT: /m);
    assert.equal(r.stdout, '');
  });

  it('needs a store: DRUM_NOT_FOUND without one', async () => {
    const r = await drum(['url', '0', '--state', join(tempDir(), 'none')]);
    assert.equal(r.status, 15, r.stderr);
  });
});

describe('drum resolve', () => {
  it('prints docID<TAB>url for each link in input order, -<TAB>url when not stored, and drum url turns the docIDs back', async () => {
    const { dir, urls } = await store();
    writeFileSync(join(dir, 'q.txt'), `http://e.example/5\nHTTP://B.example/2#frag\nmailto:x@y\nhttp://new.example/\nhttp://e.example/5\n`);
    const r = await drum(['resolve', 'q.txt'], { cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `4\t${urls[4]}\n1\t${urls[1]}\n-\thttp://new.example/\n4\t${urls[4]}\n`);
    assert.match(r.stderr, /line 3: unsupported-scheme/);
    assert.match(r.stderr, /5 links read, 3 stored, 1 not stored, 1 rejected/);
    const back = await drum(['url', '-'], { cwd: dir, input: r.stdout });
    assert.equal(back.stdout, r.stdout.split('\n').filter((l) => l !== '' && !l.startsWith('-')).join('\n') + '\n');
  });

  it('reads stdin', async () => {
    const { dir, urls } = await store();
    const r = await drum(['resolve', '-'], { cwd: dir, input: 'http://d.example/4\n' });
    assert.equal(r.stdout, `3\t${urls[3]}\n`, r.stderr);
  });

  it('answers every whole line of a cut .gz before the damage, then exits with DRUM_INPUT\'s status', async () => {
    const { dir } = await store();
    const lines = Array.from({ length: 20_000 }, (_, i) => `http://${i % 2 ? 'b' : 'z'}.example/${i % 2 ? 2 : i}`);
    const gz = gzipSync(lines.join('\n') + '\n');
    writeFileSync(join(dir, 'cut.gz'), gz.subarray(0, Math.floor(gz.length * 0.7)));
    const whole = gunzipSync(gz.subarray(0, Math.floor(gz.length * 0.7)), { finishFlush: zlib.Z_SYNC_FLUSH }).toString().split('\n').slice(0, -1);
    const r = await drum(['resolve', 'cut.gz'], { cwd: dir });
    assert.equal(r.status, EXIT_STATUS.DRUM_INPUT, r.stderr);
    assert.match(r.stderr, /DRUM_INPUT/);
    const out = r.stdout.split('\n').slice(0, -1);
    assert.ok(whole.length > 1000, String(whole.length));
    assert.equal(out.length, whole.length, 'one answer per whole line');
    assert.deepEqual(out.map((l) => l.split('\t')[1]), whole);
  });

  it('prints the summary before failing on a cut gzip: the whole lines answered, counted, then exit status DRUM_INPUT', async () => {
    const { dir } = await store();
    const lines = Array.from({ length: 20_000 }, (_, i) => (i % 1000 === 7 ? 'mailto:x@y' : `http://${i % 2 ? 'b' : 'z'}.example/${i % 2 ? 2 : i}`));
    const gz = gzipSync(lines.join('\n') + '\n');
    writeFileSync(join(dir, 'cut.gz'), gz.subarray(0, Math.floor(gz.length * 0.7)));
    const r = await drum(['resolve', 'cut.gz'], { cwd: dir });
    assert.equal(r.status, EXIT_STATUS.DRUM_INPUT, r.stderr);
    const out = r.stdout.split('\n').slice(0, -1);
    const stored = out.filter((l) => !l.startsWith('-\t')).length;
    const summary = /^drum: resolve: ([\d,]+) links read, ([\d,]+) stored, ([\d,]+) not stored, ([\d,]+) rejected$/m.exec(r.stderr);
    assert.ok(summary, `no summary line in ${JSON.stringify(r.stderr)}`);
    const [readN, storedN, notStoredN, rejectedN] = summary.slice(1).map((x) => Number(x.replace(/,/g, '')));
    assert.ok(stored > 0 && rejectedN! > 0, r.stderr);
    assert.deepEqual([storedN, notStoredN, readN], [stored, out.length - stored, out.length + rejectedN!]);
    // The summary comes before the error line.
    assert.ok(r.stderr.indexOf('drum: resolve: ') < r.stderr.indexOf('drum: DRUM_INPUT: '), r.stderr);
  });

  it('refuses a missing input and a directory on stdin with DRUM_INPUT before answering anything', async () => {
    const { dir } = await store();
    const missing = await drum(['resolve', 'nope.txt'], { cwd: dir });
    assert.equal(missing.status, EXIT_STATUS.DRUM_INPUT, missing.stderr);
    const onStdin = withDirectoryStdin(['resolve', '-'], dir);
    assert.equal(onStdin.status, EXIT_STATUS.DRUM_INPUT, onStdin.stderr);
    for (const r of [missing, onStdin]) assert.doesNotMatch(r.stderr, /links? read/);
  });
});
