// Tests of the level-backed run catalog: run round trips and ordering,
// ingested-input lookup, and the lock / corruption / read-only error codes.
// Its host counts are in catalog-hosts.test.ts.
// Each test uses its own temp state directory.

import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Catalog, type RunRecord } from '../../src/catalog/catalog.js';
import { isDrumError } from '../../src/errors.js';
import { acquireLock } from '../../src/store/lock.js';

const temps: string[] = [];
function tempState(): string {
  const d = mkdtempSync(join(tmpdir(), 'drum-catalog-test-'));
  temps.push(d);
  return d;
}
after(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

function run(runId: string, startedAt: string, over: Partial<RunRecord> = {}): RunRecord {
  return {
    runId,
    startedAt,
    finishedAt: null,
    status: 'running',
    inputs: [{ path: `/in/${runId}.txt`, bytes: 100, sha256: `${runId}-hash`.padEnd(64, '0') }],
    counts: { linksRead: 10, uniqueUrls: 7, duplicateUrls: 2, rejectedLines: 1 },
    outDir: `/out/${runId}`,
    outputFiles: ['unique-00000.txt'],
    options: { policy: 'default/v1', memoryBytes: 1 << 20 },
    ...over,
  };
}

describe('run catalog', () => {
  it('returns a stored run unchanged after close and reopen', async () => {
    const state = tempState();
    const rec = run('r1', '2025-01-01T00:00:00.000Z', { status: 'complete', finishedAt: '2025-01-01T00:01:00.000Z' });
    const c = await Catalog.open(state);
    await c.putRun(rec);
    await c.close();
    const c2 = await Catalog.open(state);
    assert.deepEqual(await c2.getRun('r1'), rec);
    assert.equal(await c2.getRun('nope'), undefined);
    await c2.close();
  });

  it('lists runs newest first, honours the limit, and lists an updated run once', async () => {
    const c = await Catalog.open(tempState());
    await c.putRun(run('b', '2025-01-02T00:00:00.000Z'));
    await c.putRun(run('a', '2025-01-01T00:00:00.000Z'));
    await c.putRun(run('c', '2025-01-03T00:00:00.000Z'));
    await c.putRun(run('b', '2025-01-02T00:00:00.000Z', { status: 'complete' }));
    await c.putRun(run('a', '2025-01-04T00:00:00.000Z')); // restarted later: moves to the top
    assert.deepEqual((await c.listRuns(10)).map((r) => r.runId), ['a', 'c', 'b']);
    assert.deepEqual((await c.listRuns(2)).map((r) => r.runId), ['a', 'c']);
    assert.equal((await c.getRun('b'))?.status, 'complete');
    await c.close();
  });

  it('finds an input only once a run that ingested it is complete, and keeps the first such run', async () => {
    const c = await Catalog.open(tempState());
    const input = { path: '/x.txt', bytes: 42, sha256: 'ab'.repeat(32) };
    await c.putRun(run('r1', '2025-01-01T00:00:00.000Z', { inputs: [input] }));
    assert.equal(await c.findIngestedInput(input.sha256, 42), undefined);
    await c.putRun(run('r1', '2025-01-01T00:00:00.000Z', { inputs: [input], status: 'complete' }));
    await c.putRun(run('r2', '2025-01-02T00:00:00.000Z', { inputs: [{ ...input, path: '/copy.txt' }], status: 'complete' }));
    assert.equal((await c.findIngestedInput(input.sha256.toUpperCase(), 42))?.runId, 'r1');
    assert.equal(await c.findIngestedInput(input.sha256, 43), undefined, 'same hash, other size');
    await c.close();
  });

  it('does not record skipped inputs, stdin, or inputs of failed runs as ingested', async () => {
    const c = await Catalog.open(tempState());
    const h = (ch: string) => ch.repeat(64);
    await c.putRun(run('r1', '2025-01-01T00:00:00.000Z', {
      status: 'complete',
      inputs: [{ path: '/s', bytes: 1, sha256: h('1'), skipped: true }, { path: '-', bytes: 5, sha256: null }],
    }));
    await c.putRun(run('r2', '2025-01-02T00:00:00.000Z', { status: 'failed', inputs: [{ path: '/f', bytes: 2, sha256: h('2') }] }));
    assert.equal(await c.findIngestedInput(h('1'), 1), undefined);
    assert.equal(await c.findIngestedInput(h('2'), 2), undefined);
    await c.close();
  });
});

describe('catalog errors', () => {
  it('refuses a second writer with DRUM_LOCKED', async () => {
    const state = tempState();
    const c = await Catalog.open(state);
    await assert.rejects(Catalog.open(state), (e) => isDrumError(e, 'DRUM_LOCKED'));
    await c.close();
  });

  it('passes the host table\'s file operations through the fault seam it is opened with, and a fault there is DRUM_IO that changes no count', async () => {
    const state = tempState();
    const seen: string[] = [];
    let fail = false;
    const c = await Catalog.open(state, {
      faultHook: (op, path) => {
        seen.push(`${op} ${path.slice(state.length)}`);
        if (fail && op === 'fsync') throw Object.assign(new Error('injected'), { code: 'EIO' });
      },
    });
    try {
      assert.equal(await c.applyHostCounts('r', 0, new Map([['a.example', 2]])), true);
      assert.ok(seen.some((s) => /^write \/hosts\/delta-.*\.hd\.tmp$/.test(s)), seen.join(', '));
      assert.ok(seen.some((s) => /^rename \/hosts\/delta-.*\.hd$/.test(s)), seen.join(', '));
      fail = true;
      await assert.rejects(c.applyHostCounts('r', 1, new Map([['a.example', 5]])), (e) => isDrumError(e, 'DRUM_IO'));
      fail = false;
      assert.equal(await c.hostCount('a.example'), 2);
      assert.equal(await c.hasRound('r', 1), false);
    } finally {
      await c.close();
    }
  });

  it('lets a reader see committed runs through a copy while a writer holds the catalog', async () => {
    const state = tempState();
    const w = await Catalog.open(state);
    await w.putRun(run('live', '2025-01-01T00:00:00.000Z'));
    await w.applyHostCounts('live', 0, new Map([['x.example', 9]]));
    const r = await Catalog.open(state, { readOnly: true });
    assert.equal((await r.listRuns(5))[0]?.runId, 'live');
    assert.deepEqual(await r.topHosts(1), [{ host: 'x.example', uniqueUrls: 9 }]);
    await assert.rejects(r.putRun(run('no', '2025-01-02T00:00:00.000Z')), (e) => isDrumError(e, 'DRUM_INTERNAL'));
    await r.close();
    await w.close();
  });

  it('reads from a copy: a reader changes no file of the catalog, and a writer opens it while a reader is open', async () => {
    const state = tempState();
    const w = await Catalog.open(state);
    await w.putRun(run('done', '2025-01-01T00:00:00.000Z'));
    await w.close();
    const dir = join(state, 'catalog');
    const files = (): Record<string, string> => Object.fromEntries(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n)).toString('base64')]));
    const before = files();
    const r = await Catalog.open(state, { readOnly: true });
    assert.equal((await r.listRuns(5))[0]?.runId, 'done');
    await r.close();
    assert.deepEqual(files(), before);
    const reader = await Catalog.open(state, { readOnly: true });
    try {
      const writer = await Catalog.open(state);
      await writer.close();
    } finally {
      await reader.close();
    }
  });

  it('reads in place when no temp directory takes a copy and no writer runs, and says DRUM_IO (never damage) while one does', async () => {
    const state = tempState();
    const w = await Catalog.open(state);
    await w.putRun(run('done', '2025-01-01T00:00:00.000Z'));
    await w.close();
    const saved = process.env['TMPDIR'];
    process.env['TMPDIR'] = join(state, 'no-such-dir');
    try {
      const r = await Catalog.open(state, { readOnly: true });
      assert.equal((await r.listRuns(5))[0]?.runId, 'done');
      await r.close();
      const lock = await acquireLock(state);
      try {
        await assert.rejects(Catalog.open(state, { readOnly: true }), (e) => isDrumError(e, 'DRUM_IO'));
      } finally {
        await lock.release();
      }
    } finally {
      if (saved === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = saved;
    }
  });

  it('reports a missing state directory as DRUM_NOT_FOUND and a state without a catalog as empty', async () => {
    const state = tempState();
    await assert.rejects(Catalog.open(join(state, 'absent'), { readOnly: true }), (e) => isDrumError(e, 'DRUM_NOT_FOUND'));
    const r = await Catalog.open(state, { readOnly: true });
    assert.deepEqual(await r.listRuns(5), []);
    assert.deepEqual(await r.topHosts(5), []);
    assert.equal(await r.findIngestedInput('0'.repeat(64), 1), undefined);
    await r.close();
    assert.deepEqual(readdirSync(state), [], 'a read-only open creates nothing');
  });

  it('reports a damaged MANIFEST as DRUM_CORRUPT_FILE naming the catalog directory', async () => {
    const state = tempState();
    const c = await Catalog.open(state);
    await c.putRun(run('r', '2025-01-01T00:00:00.000Z'));
    await c.close();
    const dir = join(state, 'catalog');
    const manifest = readdirSync(dir).find((n) => n.startsWith('MANIFEST-'))!;
    const buf = readFileSync(join(dir, manifest));
    for (let i = 0; i < buf.length; i += 7) buf[i]! ^= 0x5a;
    writeFileSync(join(dir, manifest), buf);
    await assert.rejects(Catalog.open(state), (e) => isDrumError(e, 'DRUM_CORRUPT_FILE') && e.file === dir);
  });

  it('reports a catalog path that is a plain file as DRUM_IO', async () => {
    const state = tempState();
    mkdirSync(state, { recursive: true });
    writeFileSync(join(state, 'catalog'), 'not a directory');
    await assert.rejects(Catalog.open(state), (e) => isDrumError(e, 'DRUM_IO'));
  });

  it('throws DRUM_CLOSED when used after close', async () => {
    const c = await Catalog.open(tempState());
    await c.close();
    await assert.rejects(c.listRuns(1), (e) => isDrumError(e, 'DRUM_CLOSED'));
  });
});
