import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDrumError } from '../../src/errors.js';
import { acquireLock, LEGACY_LOCK_NAME, WRITER_LOCK_DIR, writerLockHeld } from '../../src/store/lock.js';
import { Drum } from '../../src/engine/drum.js';
import { distRoot } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { lockRace } from '../torture/writers/writers.js';

/** Starts a child that takes the lock, says "held", and waits to be killed. */
function holder(state: string): { held: Promise<void>; kill(): Promise<void> } {
  const code = `const m = await import(${JSON.stringify(pathToFileURL(join(distRoot, 'src', 'store', 'lock.js')).href)});
    await m.acquireLock(${JSON.stringify(state)}); process.stdout.write('held\\n'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const held = new Promise<void>((ok, fail) => {
    child.stdout.on('data', () => ok());
    child.on('exit', (c) => fail(new Error(`holder exited ${c}`)));
  });
  const gone = new Promise<void>((ok) => child.on('exit', () => ok()));
  return { held, kill: () => (child.kill('SIGKILL'), gone) };
}

describe('the writer lock', () => {
  it('refuses a second holder in the same process with DRUM_LOCKED and is free again after release', async () => {
    const state = tempDir();
    const a = await acquireLock(state);
    await assert.rejects(acquireLock(state), (e) => isDrumError(e, 'DRUM_LOCKED'));
    await a.release();
    await a.release(); // idempotent
    const b = await acquireLock(state);
    await b.release();
  });

  it('is refused while another process holds it and free as soon as that process is killed', async () => {
    const state = tempDir();
    const h = holder(state);
    try {
      await h.held;
      await assert.rejects(acquireLock(state), (e) => isDrumError(e, 'DRUM_LOCKED'));
    } finally {
      await h.kill();
    }
    const l = await acquireLock(state);
    await l.release();
  });

  it('ignores an old pid LOCK file naming a live process, as a writer in another pid namespace leaves one', async () => {
    const state = tempDir();
    // pid 1 is alive in every namespace: a pid check would refuse this store for ever.
    fs.writeFileSync(join(state, LEGACY_LOCK_NAME), `1 ${'other-host'} 2020-01-01T00:00:00.000Z\n`);
    const d = await Drum.open(state, { workers: 0, fsync: false });
    await d.close();
    assert.ok(!fs.existsSync(join(state, LEGACY_LOCK_NAME)), 'the old LOCK file is gone');
    fs.writeFileSync(join(state, LEGACY_LOCK_NAME), `${process.pid} ${'this-host'} 2020-01-01T00:00:00.000Z\n`);
    const again = await Drum.open(state, { workers: 0, fsync: false });
    await again.close();
  });

  it('lets at most one of many processes started together hold it, trial after trial', async () => {
    const state = tempDir();
    for (let trial = 0; trial < 4; trial++) {
      const r = await lockRace('lock', state, 5, 100);
      const got = r.filter((c) => c.got);
      assert.ok(got.length >= 1, `trial ${trial}: nobody took the lock: ${JSON.stringify(r)}`);
      for (const c of r) {
        if (c.got) assert.equal(c.overlap, false, `trial ${trial}: two holders at once: ${JSON.stringify(r)}`);
        else assert.equal(c.code, 'DRUM_LOCKED', `trial ${trial}: ${JSON.stringify(r)}`);
      }
    }
  });

  it('keeps a running writer\'s work files when a second writer tries to open the store', async () => {
    const state = tempDir();
    const first = await Drum.open(state, { workers: 0, fsync: false });
    try {
      const inFlight = join(state, 'store', 'b0000-g000001.keys.tmp');
      fs.writeFileSync(inFlight, 'a merge in progress');
      fs.writeFileSync(join(state, 'work', 'bucket-0000.dat'), 'pending keys');
      const r = await lockRace('open', state, 3, 10);
      assert.deepEqual(r.map((c) => c.code), ['DRUM_LOCKED', 'DRUM_LOCKED', 'DRUM_LOCKED']);
      assert.ok(fs.existsSync(inFlight) && fs.existsSync(join(state, 'work', 'bucket-0000.dat')), 'nothing of the running writer was deleted');
    } finally {
      await first.close();
    }
  });
});

describe('writerLockHeld', { skip: !fs.existsSync('/proc/locks') && 'no /proc/locks (not Linux)' }, () => {
  it('says a writer is live while another process holds the lock, and not once it is killed', async () => {
    const state = tempDir();
    assert.equal(writerLockHeld(state), false, 'no lock file: no writer');
    const h = holder(state);
    try {
      await h.held;
      assert.equal(writerLockHeld(state), true);
    } finally {
      await h.kill();
    }
    assert.equal(writerLockHeld(state), false);
  });

  it('never takes the lock itself: a writer takes it again and again while another process probes without pause', async () => {
    const state = tempDir();
    await (await acquireLock(state)).release();
    const code = `const m = await import(${JSON.stringify(pathToFileURL(join(distRoot, 'src', 'store', 'lock.js')).href)});
      process.stdout.write('probing\\n'); const end = Date.now() + 3000; let n = 0;
      while (Date.now() < end) { m.writerLockHeld(${JSON.stringify(state)}); n++; } process.stdout.write(String(n));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    while (!out.includes('probing')) await new Promise((r) => setTimeout(r, 10));
    let takes = 0;
    while (child.exitCode === null && takes < 200) {
      const l = await acquireLock(state); // a probe that took the lock, even for a moment, would make this DRUM_LOCKED
      assert.equal(writerLockHeld(state), true);
      await l.release();
      takes++;
    }
    await new Promise((r) => (child.exitCode === null ? child.on('exit', r) : r(undefined)));
    assert.ok(takes > 20 && Number(out.replace('probing', '')) > 100, `${takes} takes beside ${out} probes`);
  });

  it('matches the lock file by device and inode only, and answers null where the lock table cannot be read', async () => {
    const state = tempDir();
    const l = await acquireLock(state);
    try {
      const st = fs.statSync(join(state, WRITER_LOCK_DIR, 'LOCK'));
      const table = join(tempDir(), 'locks');
      fs.writeFileSync(table, `1: POSIX  ADVISORY  WRITE 1 fe:00:${st.ino + 1} 0 EOF\n`);
      assert.equal(writerLockHeld(state, table), false, 'another inode');
      assert.equal(writerLockHeld(state, join(tempDir(), 'absent')), null);
    } finally {
      await l.release();
    }
  });
});
