// inputSize (src/input/open.ts) for `-`: with a caller's stdin stream (the
// library's `stdin` option) it is that stream, size unknown, whatever the
// process's own stdin is; without one, a directory on the process's stdin
// is DRUM_INPUT. Run in a child whose stdin is a directory (`< /`).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { distRoot } from '../helpers/cli.js';

const OPEN = pathToFileURL(join(distRoot, 'src', 'input', 'open.js')).href;

/** Runs an ES module body in a child whose stdin is the directory `/`; returns its stdout lines. */
function withDirectoryStdin(body: string): string[] {
  const dirFd = openSync('/', 'r');
  try {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', body], { stdio: [dirFd, 'pipe', 'pipe'], encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim().split('\n');
  } finally {
    closeSync(dirFd);
  }
}

describe('inputSize of stdin', () => {
  it('is null for a caller\'s stdin stream even when the process\'s stdin is a directory, which is DRUM_INPUT without one', () => {
    const out = withDirectoryStdin(`
      import { Readable } from 'node:stream';
      const { inputSize } = await import(${JSON.stringify(OPEN)});
      const said = async (p) => { try { return JSON.stringify(await p); } catch (e) { return e.code; } };
      console.log(await said(inputSize('-', { stdin: Readable.from([Buffer.from('http://a.example/\\n')]) })));
      console.log(await said(inputSize('-')));
    `);
    assert.deepEqual(out, ['null', 'DRUM_INPUT']);
  });
});
