// runContent (src/content/content-run.ts) given its own `stdin` stream for
// `-`: the run reads that stream, whatever the process's stdin is (a
// directory there refuses only a run that reads the process's stdin). Run in
// a child whose stdin is a directory (`< /`). A full disk under the
// duplicates file (content-duplicates.tsv linked to /dev/full, which refuses
// every write with ENOSPC) is a DRUM_IO naming the file. A run stopped while
// it writes its report (a crash before the report's rename) leaves
// content-report.json.tmp in --out, and the same command run again writes
// there.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, symlinkSync } from 'node:fs';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { distRoot } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { DUPLICATES_FILE, REPORT_FILE, runContent } from '../../src/content/content-run.js';
import { isDrumError } from '../../src/errors.js';
import { htmlRecord } from '../input/warc/helpers.js';
import { isCrash, SimulatedCrash } from '../helpers/crash.js';

const url = (...p: string[]): string => JSON.stringify(pathToFileURL(join(distRoot, ...p)).href);

describe('runContent reading a caller\'s stdin stream', () => {
  it('reads the stream it is given for - while the process\'s stdin is a directory, and refuses - without one', () => {
    const dir = tempDir();
    const dirFd = openSync('/', 'r');
    let r;
    try {
      r = spawnSync(process.execPath, ['--input-type=module', '-e', `
        import { Readable } from 'node:stream';
        const { runContent } = await import(${url('src', 'content', 'content-run.js')});
        const { htmlRecord } = await import(${url('test', 'input', 'warc', 'helpers.js')});
        const page = (u) => htmlRecord(u, '<html><body><p>' + 'the same words on both pages '.repeat(20) + '</p></body></html>');
        const o = (n, stdin) => ({ stateDir: ${JSON.stringify(dir)} + '/s' + n, outDir: ${JSON.stringify(dir)} + '/o' + n, inputs: ['-'], stdin, threshold: 3, roundDocs: 100, fsync: false });
        const said = async (p) => { try { return String((await p).exactDuplicates); } catch (e) { return e.code; } };
        console.log(await said(runContent(o(1, Readable.from([page('http://a.example/'), page('http://b.example/')])))));
        console.log(await said(runContent(o(2))));
      `], { stdio: [dirFd, 'pipe', 'pipe'], encoding: 'utf8' });
    } finally {
      closeSync(dirFd);
    }
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), ['1', 'DRUM_INPUT']);
  });
});

describe('runContent on a full disk', () => {
  it('refuses with DRUM_IO naming the duplicates file when the disk will not take it', async (t) => {
    if (!existsSync('/dev/full')) return t.skip('needs /dev/full (Linux)');
    const dir = tempDir();
    const outDir = join(dir, 'out');
    mkdirSync(outDir);
    symlinkSync('/dev/full', join(outDir, DUPLICATES_FILE));
    const page = (u: string): Buffer => htmlRecord(u, `<html><body><p>${'the same words on both pages '.repeat(20)}</p></body></html>`);
    const stdin = Readable.from([page('http://a.example/'), page('http://b.example/')]);
    await assert.rejects(
      runContent({ stateDir: join(dir, 'state'), outDir, inputs: ['-'], stdin, threshold: 3, roundDocs: 100, fsync: false }),
      (e) => isDrumError(e, 'DRUM_IO') && (e as { file?: string }).file === join(outDir, DUPLICATES_FILE),
    );
  });
});

describe('runContent run again after a crash while it wrote its report', () => {
  it('writes into the --out that holds the report\'s temporary file, and leaves only its two outputs there', async () => {
    const dir = tempDir();
    const outDir = join(dir, 'out');
    const page = (u: string): Buffer => htmlRecord(u, `<html><body><p>${'the same words on both pages '.repeat(20)}</p></body></html>`);
    const o = (faultHook?: (op: string, path: string) => void) => ({
      stateDir: join(dir, 'state'), outDir, inputs: ['-'], stdin: Readable.from([page('http://a.example/'), page('http://b.example/')]), threshold: 3, roundDocs: 100, fsync: true, faultHook,
    });
    await assert.rejects(runContent(o((op, path) => {
      if (op === 'rename' && path === join(outDir, REPORT_FILE)) throw new SimulatedCrash('crash before the report\'s rename');
    })), isCrash);
    assert.deepEqual(readdirSync(outDir).sort(), [DUPLICATES_FILE, `${REPORT_FILE}.tmp`]);
    const again = await runContent(o());
    assert.equal(again.exactDuplicates, 2);
    assert.deepEqual(readdirSync(outDir).sort(), [DUPLICATES_FILE, REPORT_FILE]);
  });
});
