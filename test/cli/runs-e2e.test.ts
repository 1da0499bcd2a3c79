// End-to-end tests of interrupted and abandoned runs with the real bin/drum:
// a run killed (SIGKILL) after some commits and replaced by a run with
// another --out is named on stderr with its committed count, `drum runs
// --json` lists it as abandoned with its output directory, and the two
// output directories together hold every new URL exactly once; an
// unfinished run is listed as interrupted; SIGINT and SIGTERM stop with one
// line and exit 130 and 143. Skips when the compiled engine is absent.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { EXIT_STATUS, SIGNAL_EXIT_STATUS } from '../../src/errors.js';
import type { RunRecord } from '../../src/catalog/catalog.js';
import { drum, haveEngine, manifestOf, startDrum, type Result } from '../torture/harness.js';
import { uniques } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/** n distinct canonical URLs (canonicalization leaves them as they are), from `from` on. */
function urls(from: number, n: number): string[] {
  const out: string[] = [];
  for (let i = from; i < from + n; i++) out.push(`http://h${i % 53}.example/page/${i}`);
  return out;
}

const FLAGS = ['--no-progress', '--no-fsync', '--merge-every', '5000', '--workers', '1'];

/** Waits until the state's unfinished run has committed at least one round; returns its committed count. */
async function untilCommitted(state: string, child: ChildProcess): Promise<number> {
  for (let i = 0; i < 600; i++) {
    const run = manifestOf(state)?.run;
    if (run && run.status === 'running' && run.rounds >= 1) return run.counters.uniqueUrls!;
    if (child.exitCode !== null) throw new Error('drum exited before it committed a round');
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no round committed in 30 s');
}

/** Starts a stdin ingest fed `first` and left open, waits for a commit. */
async function startedStdinRun(root: string, out: string, first: string[]): Promise<{ child: ChildProcess; done: Promise<Result>; runId: string; committed: number }> {
  const { child, done } = startDrum(['ingest', ...FLAGS, '--out', out, '-'], { cwd: root, input: first.join('\n') + '\n', stdinOpen: true });
  child.stdin!.on('error', () => {}); // the rest of the input meets a stopped process
  let committed: number;
  try {
    committed = await untilCommitted(join(root, 'drum-state'), child);
  } catch (e) {
    // A drum left waiting on its open stdin would keep the test process, and so the suite, alive.
    child.kill('SIGKILL');
    await done;
    throw e;
  }
  return { child, done, runId: manifestOf(join(root, 'drum-state'))!.run!.runId, committed };
}

async function runsJson(root: string): Promise<RunRecord[]> {
  const r = await drum(['runs', '--json'], { cwd: root });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as RunRecord[];
}

describe('interrupted and abandoned runs', { skip: !haveEngine && 'engine not compiled' }, () => {
  it('names a killed stdin run that a new run abandons, lists it, and delivers every new URL exactly once across both outputs', async () => {
    const root = tempDir();
    const a = urls(0, 150_000); // several MiB: chunks reach the engine while stdin stays open
    const started = await startedStdinRun(root, 'out1', a);
    started.child.kill('SIGKILL');
    await started.done;
    // Rounds go on committing while stdin pauses (every chunk read is routed): count what the kill left.
    const killed = { ...started, committed: manifestOf(join(root, 'drum-state'))!.run!.counters.uniqueUrls! };
    assert.ok(killed.committed >= started.committed && killed.committed < a.length, `committed ${killed.committed}`);

    const listed = (await runsJson(root)).find((r) => r.runId === killed.runId);
    assert.equal(listed?.status, 'interrupted');
    assert.equal(listed?.outDir, join(root, 'out1'));
    assert.equal(listed?.counts.uniqueUrls, killed.committed);

    const b = [...a, ...urls(150_000, 5_000)];
    const next = await drum(['ingest', ...FLAGS, '--quiet', '--out', 'out2', '-'], { cwd: root, input: b.join('\n') + '\n' });
    assert.equal(next.status, 0, next.stderr);
    assert.match(next.stderr, new RegExp(`abandoned .*${killed.runId}.* ${killed.committed.toLocaleString('en-US')} new URLs .*${join(root, 'out1')}`));

    const rec = (await runsJson(root)).find((r) => r.runId === killed.runId);
    assert.equal(rec?.status, 'abandoned');
    assert.equal(rec?.counts.uniqueUrls, killed.committed);
    assert.equal(rec?.outDir, join(root, 'out1'));

    const first = uniques(join(root, 'out1'));
    assert.equal(first.length, killed.committed, 'the abandoned output holds exactly its committed URLs');
    const all = [...first, ...uniques(join(root, 'out2'))];
    assert.equal(new Set(all).size, all.length, 'no URL in both outputs');
    assert.deepEqual(new Set(all), new Set(b));
  });

  it('lists an abandoned file run the same way when the next run asks for another output directory', async () => {
    const root = tempDir();
    const input = join(root, 'links.txt');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(input, urls(0, 120_000).join('\n') + '\n');
    const { child, done } = startDrum(['ingest', ...FLAGS, '--merge-every', '2000', '--out', 'out1', input], { cwd: root });
    const committed = await untilCommitted(join(root, 'drum-state'), child).catch(() => -1);
    child.kill('SIGKILL');
    await done;
    if (committed < 0) return; // finished before a kill could land: nothing was interrupted
    const runId = manifestOf(join(root, 'drum-state'))!.run!.runId;
    const next = await drum(['ingest', ...FLAGS, '--quiet', '--out', 'out2', input], { cwd: root });
    assert.equal(next.status, 0, next.stderr);
    assert.match(next.stderr, new RegExp(`abandoned .*${runId}`));
    const rec = (await runsJson(root)).find((r) => r.runId === runId);
    assert.equal(rec?.status, 'abandoned');
    const all = [...uniques(join(root, 'out1')), ...uniques(join(root, 'out2'))];
    assert.equal(new Set(all).size, all.length);
    assert.equal(all.length, 120_000);
  });

  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    it(`stops on ${sig} with one line naming what was committed and exits ${SIGNAL_EXIT_STATUS[sig]}`, async () => {
      const root = tempDir();
      const run = await startedStdinRun(root, 'out', urls(0, 150_000));
      run.child.kill(sig);
      const r = await run.done;
      assert.equal(r.status, SIGNAL_EXIT_STATUS[sig], r.stderr);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, new RegExp(`${sig}.*${run.runId}.*new URLs? in .*out`));
      assert.match(lines[0]!, /stdin run cannot resume/);
      const committed = manifestOf(join(root, 'drum-state'))!.run!.counters.uniqueUrls!;
      assert.match(lines[0]!, new RegExp(` ${committed.toLocaleString('en-US')} new URL`));
      assert.ok(existsSync(join(root, 'out', 'unique-00001.txt')));
      const rec = (await runsJson(root)).find((x) => x.runId === run.runId);
      assert.equal(rec?.status, 'interrupted');
    });
  }
});

describe('drum runs and a damaged input', { skip: !haveEngine }, () => {
  /** A WARC/1.0 response record holding one link. */
  function warcRecord(i: number): Buffer {
    const html = `<html><a href="/to/${i}">x</a></html>`;
    const block = `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${html.length}\r\n\r\n${html}`;
    const head = [
      'WARC/1.0', 'WARC-Type: response', `WARC-Target-URI: http://w.example/p/${i}`, 'WARC-Date: 2024-01-01T00:00:00Z',
      'WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000000>', 'Content-Type: application/http; msgtype=response',
      `Content-Length: ${block.length}`, '', '',
    ].join('\r\n');
    return Buffer.from(`${head}${block}\r\n\r\n`, 'latin1');
  }

  it('lists a run whose gzip and WARC inputs were cut as complete with 2 damaged inputs, naming each and where it broke', async () => {
    const root = tempDir();
    const state = join(root, 'drum-state');
    const gz = gzipSync(`${urls(0, 50_000).join('\n')}\n`);
    const cutGz = join(root, 'links.txt.gz');
    writeFileSync(cutGz, gz.subarray(0, Math.floor(gz.length * 0.8)));
    const warc = gzipSync(Buffer.concat(Array.from({ length: 200 }, (_, i) => warcRecord(i))));
    const cutWarc = join(root, 'pages.warc.gz');
    writeFileSync(cutWarc, warc.subarray(0, Math.floor(warc.length * 0.7)));
    const whole = join(root, 'whole.txt');
    writeFileSync(whole, 'http://whole.example/1\n');

    const r = await drum(['ingest', ...FLAGS, '--state', state, '--out', join(root, 'out'), whole, cutGz, cutWarc], { cwd: root });
    assert.equal(r.status, EXIT_STATUS.DRUM_INPUT, r.stderr);
    const rec = (await runsJson(root))[0]!;
    assert.equal(rec.status, 'complete');
    assert.deepEqual(rec.inputs.map((i) => i.damaged !== undefined), [false, true, true]);

    const text = await drum(['runs', '--state', state], { cwd: root });
    assert.equal(text.status, 0, text.stderr);
    const row = text.stdout.split('\n').find((l) => l.startsWith(rec.runId))!;
    assert.match(row, /complete \(2 damaged inputs\)/);
    assert.match(row, new RegExp(`links\\.txt\\.gz \\(damaged after line ${rec.inputs[1]!.damaged!.line.toLocaleString('en-US')}\\)`));
    assert.match(row, /pages\.warc\.gz \(damaged after line/);
    assert.doesNotMatch(row, /whole\.txt \(damaged/);
    assert.ok(rec.inputs[1]!.damaged!.line > 0 && rec.inputs[1]!.damaged!.line < 50_000);

    // A clean run after it is listed plainly.
    const clean = join(root, 'clean.txt');
    writeFileSync(clean, 'http://clean.example/1\n');
    assert.equal((await drum(['ingest', ...FLAGS, '--state', state, '--out', join(root, 'out2'), clean], { cwd: root })).status, 0);
    const after = (await drum(['runs', '--state', state], { cwd: root })).stdout.split('\n');
    assert.match(after.find((l) => l.includes('clean.txt'))!, /^\S+\s+complete\s/);
  });
});
