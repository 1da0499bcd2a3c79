// drum serve and drum follow stopped by SIGTERM or SIGINT while they still
// wait for NATS JetStream to answer their set-up (a real nats-server on
// 127.0.0.1 without JetStream, which answers every JetStream call "not
// enabled"): they stop at once and exit 0, as after serving, instead of
// waiting out the 60 s they give a cluster to answer and exiting DRUM_IO.
// Skips without nats-server (fails instead when CI is set).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp.js';
import { freePort, haveNats, INSTALL_HINT, killDrums, spawnDrum, type DrumProc } from '../helpers/nats.js';

const HAVE = haveNats();

/** Waits until the process has said `what` on stderr (or exited). */
async function said(p: DrumProc, what: RegExp): Promise<void> {
  while (!what.test(p.stderr()) && p.proc.exitCode === null) await new Promise((r) => setTimeout(r, 50));
}

/** The exit status, or 'still running' when it has not exited `ms` after the signal. */
async function exitWithin(p: DrumProc, signal: NodeJS.Signals, ms: number): Promise<number | null | string> {
  p.proc.kill(signal);
  let t: NodeJS.Timeout | undefined;
  const late = new Promise<string>((r) => (t = setTimeout(() => r('still running'), ms)));
  try {
    return await Promise.race([p.exited, late]);
  } finally {
    clearTimeout(t);
  }
}

describe('a cluster command stopped while JetStream does not answer', { skip: HAVE ? false : INSTALL_HINT, timeout: 60_000 }, () => {
  let server: ChildProcess | null = null;
  let url = '';
  before(async () => {
    const port = await freePort();
    url = `nats://127.0.0.1:${port}`;
    server = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 500));
  });
  after(() => {
    killDrums();
    server?.kill('SIGKILL');
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`drum serve stops at ${signal} and exits 0`, async () => {
      const dir = tempDir();
      const p = spawnDrum(['serve', '--nats', url, '--shard', '0', '--shards', '1', '--state', join(dir, 'shard'), '--workers', '0'], dir);
      await said(p, /did not answer.*trying again/);
      assert.equal(await exitWithin(p, signal, 5000), 0, p.stderr());
      assert.doesNotMatch(p.stderr(), /DRUM_/);
    });
  }

  it('drum follow stops at SIGINT and exits 0', async () => {
    const p = spawnDrum(['follow', '--nats', url], tempDir());
    await said(p, /did not answer.*trying again/);
    assert.equal(await exitWithin(p, 'SIGINT', 5000), 0, p.stderr());
    assert.doesNotMatch(p.stderr(), /DRUM_/);
  });
});
