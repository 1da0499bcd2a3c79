// End-to-end: `drum ingest --out -` writes the run's new URLs to stdout as
// rounds commit (the report and notes go to stderr), for stdin, gzip TSV and
// WARC inputs, keeps them in <state>/runs/<run-id>/ as well, and ends
// cleanly (exit 0, no stack trace) when the reader goes away (`| head -1`).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { RunRecord } from '../../src/catalog/catalog.js';
import type { RunReport } from '../../src/stats/report.js';
import { bin, distRoot, drum, repoRoot, uniques } from '../helpers/cli.js';
import { haveEngine } from '../torture/harness.js';
import { tempDir } from '../helpers/tmp.js';

const lines = (s: string): string[] => s.split('\n').filter((l) => l !== '');

function runDirOf(state: string): string {
  const runs = fs.readdirSync(join(state, 'runs'));
  assert.equal(runs.length, 1);
  return join(state, 'runs', runs[0]!);
}

describe('drum ingest --out -', { skip: !haveEngine && 'engine not compiled' }, () => {
  it('prints exactly the new URLs of stdin on stdout, in arrival order, and the report on stderr', async () => {
    const dir = tempDir();
    const input = 'HTTP://A.example:80/x\nhttp://b.example/y#f\nhttp://a.example/x\nmailto:me@x\nhttp://c.example/\n';
    const r = await drum(['ingest', '--out', '-', '-'], { cwd: dir, input });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'http://a.example/x\nhttp://b.example/y\nhttp://c.example/\n');
    assert.match(r.stderr, /unique/);
    assert.deepEqual(uniques(runDirOf(join(dir, 'drum-state'))), lines(r.stdout), 'kept in the run directory too');
    const again = await drum(['ingest', '--out', '-', '--quiet', '-'], { cwd: dir, input: 'http://c.example/\nhttp://d.example/\n' });
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout, 'http://d.example/\n');
    assert.equal(again.stderr, '');
  });

  it('sends the --json report to stderr and only URLs to stdout', async () => {
    const dir = tempDir();
    const r = await drum(['ingest', '--out', '-', '--json', '-'], { cwd: dir, input: 'http://a.example/1\nhttp://a.example/1\n' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'http://a.example/1\n');
    const report = JSON.parse(r.stderr) as RunReport;
    assert.equal(report.uniqueUrls, 1);
  });

  it('prints every round of a gzip TSV file, the same URLs as the run directory holds', async () => {
    const dir = tempDir();
    const r = await drum(['ingest', '--out', '-', '--quiet', '--merge-every', '1000', join(repoRoot, 'data', 'archive-org-2008-outlinks.tsv.gz')], { cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    const printed = lines(r.stdout);
    assert.ok(printed.length > 1000, `several rounds: ${printed.length}`);
    assert.deepEqual(printed, uniques(runDirOf(join(dir, 'drum-state'))));
  });

  it('prints the new links of a gzipped WARC file', async () => {
    const dir = tempDir();
    const html = '<html><a href="b.html">b</a> <a href="/c">c</a> <a href="b.html">again</a></html>';
    const http = `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${html.length}\r\n\r\n${html}`;
    const head = ['WARC/1.0', 'WARC-Type: response', 'WARC-Target-URI: http://example.org/a/', 'WARC-Date: 2024-01-01T00:00:00Z',
      'WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>', 'Content-Type: application/http; msgtype=response', `Content-Length: ${http.length}`, '', ''].join('\r\n');
    const file = join(dir, 'crawl.warc.gz');
    fs.writeFileSync(file, gzipSync(Buffer.from(`${head}${http}\r\n\r\n`, 'latin1')));
    const r = await drum(['ingest', '--out', '-', '--quiet', file], { cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'http://example.org/a/b.html\nhttp://example.org/c\n');
  });

  it('ends cleanly with exit 0 when the reader stops after one line, and the next run says where the rest is', async () => {
    const dir = tempDir();
    const input = join(dir, 'links.txt');
    fs.writeFileSync(input, Array.from({ length: 200_000 }, (_, i) => `http://h${i % 97}.example/p/${i}`).join('\n') + '\n');
    const sh = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${bin}" ingest --no-fsync --merge-every 5000 --out - - < links.txt | head -1`], {
      cwd: dir, encoding: 'utf8', env: { ...process.env, DRUM_DIST_DIR: distRoot, DRUM_STATE: '' },
    });
    assert.equal(sh.status, 0, sh.stderr);
    assert.equal(sh.stdout, 'http://h0.example/p/0\n');
    assert.doesNotMatch(sh.stderr, /unexpected|at .*\.js:\d+|EPIPE/);
    const runs = JSON.parse((await drum(['runs', '--json'], { cwd: dir })).stdout) as RunRecord[];
    assert.equal(runs.length, 1);
    if (runs[0]!.status === 'complete') return; // drum had finished before head closed the pipe
    assert.equal(runs[0]!.status, 'interrupted');
    const next = await drum(['ingest', '--quiet', '--out', 'rest', '-'], { cwd: dir, input: 'http://new.example/\n' });
    assert.equal(next.status, 0, next.stderr);
    assert.match(next.stderr, new RegExp(`abandoned .*${runs[0]!.runId}.*${runs[0]!.outDir}`));
  });
});
