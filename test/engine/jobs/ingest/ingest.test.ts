// Tests of the ingest job through the real bin/drum: a damaged input keeps
// every complete line before the damage, is recorded as damaged at its
// position (never as ingested), fails again the same way when run again
// (emitting nothing twice), and its repaired file is then ingested with only
// its remaining URLs new. Through the library: each of several ingests on
// one open Drum reports its own stages, and a refusal names the option as
// the library spells it (outDir, revisitAfter), not only as the CLI does.
// An outDir nested in new directories has every new name made durable
// before the run commits: the new URLs it holds are said only once.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { constants as zlibConstants, gunzipSync, gzipSync } from 'node:zlib';
import { EXIT_STATUS, isDrumError } from '../../../../src/errors.js';
import { Drum } from '../../../../src/engine/drum.js';
import { withDrum as withDrumOpen } from '../../../helpers/drum.js';
import { drum, uniques } from '../../../helpers/cli.js';
import { tempDir } from '../../../helpers/tmp.js';

/** The complete lines a reference reader (zlib inflate until the damage) gets from a cut gzip. */
function completeLines(cut: Buffer): string[] {
  const text = gunzipSync(cut, { finishFlush: zlibConstants.Z_SYNC_FLUSH }).toString('latin1');
  return text.slice(0, text.lastIndexOf('\n') + 1).split('\n').slice(0, -1);
}

describe('ingest of a damaged input', () => {
  it('ingests every complete line before the damage, records the input as damaged, fails the same way again, then takes the repaired file', async () => {
    const dir = tempDir();
    const lines = Array.from({ length: 300_000 }, (_, i) => `http://h${i % 97}.example/page/${i}`);
    const gz = gzipSync(`${lines.join('\n')}\n`);
    const file = join(dir, 'links.txt.gz');
    fs.writeFileSync(file, gz.subarray(0, Math.floor(gz.length * 0.9)));
    const want = completeLines(gz.subarray(0, Math.floor(gz.length * 0.9)));
    assert.ok(want.length > 200_000 && want.length < lines.length, String(want.length));
    const state = join(dir, 'state');
    const small = ['--no-progress', '--merge-every', '30000', '--workers', '1'];

    const first = await drum(['ingest', '--state', state, '--out', join(dir, 'o1'), ...small, file]);
    assert.equal(first.status, EXIT_STATUS.DRUM_INPUT, first.stderr);
    assert.deepEqual(uniques(join(dir, 'o1')), want);
    const runs = JSON.parse((await drum(['runs', '--state', state, '--json'])).stdout) as { inputs: { damaged?: { line: number } }[] }[];
    assert.equal(runs[0]!.inputs[0]!.damaged?.line, want.length);
    const report1 = JSON.parse(fs.readFileSync(join(dir, 'o1', 'report.json'), 'utf8')) as { inputErrors: { code: string; line: number }[] };
    assert.equal(report1.inputErrors.length, 1);
    assert.equal(report1.inputErrors[0]!.code, 'DRUM_INPUT');
    assert.equal(report1.inputErrors[0]!.line, want.length);

    // The same damaged file again: not "already ingested"; the same error, nothing new emitted.
    const again = await drum(['ingest', '--state', state, '--out', join(dir, 'o2'), ...small, file]);
    assert.equal(again.status, EXIT_STATUS.DRUM_INPUT, again.stderr);
    assert.doesNotMatch(again.stderr, /already ingested/);
    assert.deepEqual(uniques(join(dir, 'o2')), []);

    // The repaired file: only the URLs past the damage are new.
    fs.writeFileSync(file, gz);
    const fixed = await drum(['ingest', '--state', state, '--out', join(dir, 'o3'), ...small, file]);
    assert.equal(fixed.status, 0, fixed.stderr);
    assert.deepEqual(uniques(join(dir, 'o3')), lines.slice(want.length));
    const done = await drum(['ingest', '--state', state, '--out', join(dir, 'o4'), ...small, file]);
    assert.equal(done.status, 0, done.stderr);
    assert.match(done.stderr, /already ingested/);
  });
});

describe('ingest of a changed input', () => {
  it('does not skip a same-size input over the whole-hash limit changed only in the middle, and skips it once it is unchanged', async () => {
    const dir = tempDir();
    const file = join(dir, 'big.txt');
    // 70 MiB, over the 64 MiB limit: a few URLs at each end, comment lines between (cheap to read).
    const comment = `# ${'c'.repeat(1021)}\n`; // 1 KiB
    const n = 70 * 1024;
    const body = Buffer.from(`http://a.example/first\n${comment.repeat(n)}http://a.example/last\n`);
    fs.writeFileSync(file, body);
    const state = join(dir, 'state');
    const run = (out: string) => drum(['ingest', '--state', state, '--out', join(dir, out), '--no-progress', file]);
    const first = await run('o1');
    assert.equal(first.status, 0, first.stderr);
    assert.deepEqual(uniques(join(dir, 'o1')), ['http://a.example/first', 'http://a.example/last']);

    // Same size, same first and last MiB: one comment line in the middle becomes a URL line of the same length.
    const mid = 23 + (n >> 1) * comment.length;
    const url = 'http://a.example/middle/';
    Buffer.from(`${url}${'m'.repeat(comment.length - url.length - 1)}\n`).copy(body, mid);
    fs.writeFileSync(file, body);
    const changed = await run('o2');
    assert.equal(changed.status, 0, changed.stderr);
    assert.doesNotMatch(changed.stderr, /already ingested/);
    assert.deepEqual(uniques(join(dir, 'o2')), [`${url}${'m'.repeat(comment.length - url.length - 1)}`]);

    // Unchanged since: confirmed by one read, then skipped.
    const again = await run('o3');
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stderr, /already ingested/);
  });
});

describe('the report of one of many ingests through one open Drum', () => {
  it('shows the stages of that run only: the second of two ingests reports its own merge, and no open', async () => {
    const dir = tempDir();
    const file = (name: string, from: number): string => {
      const p = join(dir, name);
      fs.writeFileSync(p, Array.from({ length: 5000 }, (_, i) => `http://h${i % 31}.example/p/${from + i}\n`).join(''));
      return p;
    };
    const d = await Drum.open(join(dir, 'state'), { workers: 0, fsync: false, journalKeys: 0 });
    try {
      const r1 = await d.ingest({ inputs: [file('a.txt', 0)], outDir: join(dir, 'o1') });
      const r2 = await d.ingest({ inputs: [file('b.txt', 100_000)], outDir: join(dir, 'o2') });
      assert.ok(r1.stages['open'] !== undefined, 'the first run of a process pays the open');
      assert.equal(r2.stages['open'], undefined);
      assert.equal(r1.stages['merge-store']?.items, r1.storeUrls, 'the merge writes every stored key');
      assert.equal(r2.stages['merge-store']?.items, r2.storeUrls, 'not the sum of both runs');
      assert.ok(r2.stages['merge']!.ms <= r2.elapsedMs + 1, `merge ${r2.stages['merge']!.ms} ms in a run of ${r2.elapsedMs} ms`);
    } finally {
      await d.close();
    }
  });

  it('leaves out of the first run\'s stages a job that came before it, but keeps the open', async () => {
    const dir = tempDir();
    const p = join(dir, 'a.txt');
    fs.writeFileSync(p, Array.from({ length: 3000 }, (_, i) => `http://h${i % 31}.example/p/${i}\n`).join(''));
    const state = join(dir, 'state');
    const opts = { workers: 0, fsync: false } as const;
    await withDrumOpen(state, opts, (d) => d.ingest({ inputs: [p], outDir: join(dir, 'o1') }));
    const r = await withDrumOpen(state, opts, async (d) => {
      assert.ok((await d.compact()).journalKeys > 0, 'the compaction folds the journal');
      fs.writeFileSync(p, 'http://new.example/\n');
      return d.ingest({ inputs: [p], outDir: join(dir, 'o2') });
    });
    assert.ok(r.stages['open'] !== undefined);
    assert.deepEqual(Object.keys(r.stages).filter((k) => k.startsWith('fold')), [], Object.keys(r.stages).join(', '));
  });
});

describe('ingest refusals through the library', () => {
  /** The error `p` rejects with, which must carry `code`. */
  async function refusal(p: Promise<unknown>, code: 'DRUM_CLOBBER' | 'DRUM_BAD_OPTION'): Promise<Error> {
    const e = await p.then(() => assert.fail(`expected ${code}`), (x: unknown) => x);
    assert.ok(isDrumError(e, code), String(e));
    return e as Error;
  }

  it('names the library option, outDir or revisitAfter, where the command line names --out or --revisit-after, under the same code', async () => {
    const dir = tempDir();
    const p = join(dir, 'a.txt');
    fs.writeFileSync(p, 'http://a.example/\n');
    const notDir = join(dir, 'not-a-dir');
    fs.writeFileSync(notDir, 'x\n');
    await withDrumOpen(join(dir, 'state'), { workers: 0, fsync: false, bloom: 'lossy' }, async (d) => {
      assert.match((await refusal(d.ingest({ inputs: [p], outDir: notDir }), 'DRUM_CLOBBER')).message, /\boutDir\b/);
      assert.match((await refusal(d.ingest({ inputs: [p], revisitAfter: 60 }), 'DRUM_BAD_OPTION')).message, /\brevisitAfter\b/);
    });
  });
});

describe('the directories an ingest makes for its outputs', () => {
  it('fsyncs the directory holding each new directory of an outDir nested in new ones, before the run commits', async () => {
    const dir = tempDir();
    const p = join(dir, 'a.txt');
    fs.writeFileSync(p, 'http://a.example/\n');
    const outDir = join(dir, 'crawl', 'day-1', 'run');
    const ops: string[] = [];
    await withDrumOpen(join(dir, 'state'), { workers: 0, faultHook: (op, path) => void ops.push(`${op} ${path}`) }, async (d) => {
      const from = ops.length;
      await d.ingest({ inputs: [p], outDir });
      const run = ops.slice(from);
      const commit = run.lastIndexOf(`rename ${join(dir, 'state', 'MANIFEST')}`);
      assert.ok(commit >= 0, run.join('\n'));
      for (const held of [dirname(outDir), join(dir, 'crawl'), dir]) {
        const at = run.indexOf(`fsync ${held}`);
        assert.ok(at >= 0 && at < commit, `${held} fsynced before the run's last commit:\n${run.join('\n')}`);
      }
    });
  });
});
