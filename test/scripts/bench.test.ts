// Smoke test of the benchmark's building blocks (no timing assertions): the
// link generator is deterministic per seed and hits its unique-fraction
// range, batch 2 overlaps batch 1, and the peer dedups (Set, level, DuckDB)
// emit exactly what an in-test Set model emits. Runs in a few seconds on 100 k links.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { generateLinks } from '../../scripts/gen-links.js';
import { HostTable } from '../../scripts/lib/models/link-model.js';
import { setDedup } from '../../scripts/peers/set-dedup.js';
import { levelDedup } from '../../scripts/peers/level-dedup.js';
import { duckDbDedup } from '../../scripts/peers/duckdb-dedup.js';
import { medianRow, type BenchRow } from '../../scripts/lib/bench/bench-report.js';

const N = 100_000;
let dir = '';

function modelDedup(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (let line of text.split('\n')) {
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line === '' || seen.has(line)) continue;
    seen.add(line);
    out.push(line);
  }
  return out;
}

const lines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');

describe('link generator', () => {
  before(() => { dir = mkdtempSync(join(tmpdir(), 'drum-bench-test-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the same bytes for the same seed and different bytes for another seed', async () => {
    await generateLinks({ links: N, seed: 7, out: join(dir, 'a.txt') });
    await generateLinks({ links: N, seed: 7, out: join(dir, 'b.txt') });
    await generateLinks({ links: N, seed: 8, out: join(dir, 'c.txt') });
    const a = readFileSync(join(dir, 'a.txt'));
    assert.ok(a.equals(readFileSync(join(dir, 'b.txt'))));
    assert.ok(!a.equals(readFileSync(join(dir, 'c.txt'))));
    assert.equal(lines(join(dir, 'a.txt')).length, N);
  });

  it('reports unique fractions in the requested range and counts them exactly', async () => {
    const meta = await generateLinks({ links: N, seed: 7, newFraction: 0.2, out: join(dir, 'm.txt') });
    const onDisk = JSON.parse(readFileSync(join(dir, 'm.txt.meta.json'), 'utf8')) as typeof meta;
    assert.deepEqual(onDisk.unique, meta.unique);
    assert.ok(meta.uniqueFraction.pages >= 0.19 && meta.uniqueFraction.pages <= 0.25, `pages ${meta.uniqueFraction.pages}`);
    assert.ok(meta.uniqueFraction.exact >= 0.1 && meta.uniqueFraction.exact <= 0.35, `exact ${meta.uniqueFraction.exact}`);
    assert.ok(meta.unique.exact >= meta.unique.defaultPolicy && meta.unique.defaultPolicy >= meta.unique.pages);
    assert.equal(meta.unique.exact, modelDedup(readFileSync(join(dir, 'm.txt'), 'utf8')).length);
    assert.ok(meta.intraHostFraction > 0.75 && meta.intraHostFraction < 0.85);
    assert.ok(meta.avgUrlBytes > 50 && meta.avgUrlBytes < 80, `avg ${meta.avgUrlBytes}`);
  });

  it('lowers the unique fraction when asked for fewer new links', async () => {
    const lo = await generateLinks({ links: N, seed: 3, newFraction: 0.1, out: join(dir, 'lo.txt') });
    const hi = await generateLinks({ links: N, seed: 3, newFraction: 0.3, out: join(dir, 'hi.txt') });
    assert.ok(lo.uniqueFraction.defaultPolicy + 0.1 < hi.uniqueFraction.defaultPolicy);
  });

  it('makes a second batch that repeats many first-batch URLs and adds new ones', async () => {
    await generateLinks({ links: N, seed: 5, out: join(dir, 'b1.txt') });
    const m2 = await generateLinks({ links: N, seed: 5, batch: 2, out: join(dir, 'b2.txt') });
    const first = new Set(lines(join(dir, 'b1.txt')));
    const second = new Set(lines(join(dir, 'b2.txt')));
    let fresh = 0;
    for (const u of second) if (!first.has(u)) fresh++;
    assert.equal(m2.newVsPrevious?.exact, fresh);
    assert.ok(fresh > 0 && fresh < second.size * 0.9);
  });

  it('writes TSV rows of source and target URL', async () => {
    await generateLinks({ links: 1000, seed: 1, format: 'tsv', out: join(dir, 't.tsv') });
    for (const row of lines(join(dir, 't.tsv'))) {
      const f = row.split('\t');
      assert.equal(f.length, 2);
      assert.match(f[0]!, /^https?:\/\/[^/]+\//);
      assert.match(f[1]!, /^https?:\/\//);
    }
  });

  it('gives every synthetic host a distinct name', () => {
    const t = new HostTable(300_000, 9);
    const names = new Set<string>();
    for (let h = 0; h < t.count; h++) names.add(t.names.toString('latin1', t.offs[h], t.offs[h + 1]));
    assert.equal(names.size, t.count);
  });
});

describe('peer dedups', () => {
  let input = '';
  let expected: string[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'drum-bench-peers-'));
    input = join(dir, 'in.txt');
    await generateLinks({ links: 20_000, seed: 11, out: input });
    // Add the line-ending cases a peer must treat like any reader: CRLF, blanks, no final newline.
    const text = readFileSync(input, 'utf8') + 'http://a.example/x\r\n\nhttp://a.example/x\nhttp://b.example/é';
    writeFileSync(input, text);
    expected = modelDedup(text);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('Set peer emits exactly the first occurrences in input order', async () => {
    const s = await setDedup(input, join(dir, 'set.out'));
    assert.deepEqual(lines(join(dir, 'set.out')), expected);
    assert.equal(s.unique, expected.length);
    assert.equal(s.truncated, false);
  });

  it('level peer emits exactly the first occurrences in input order across batches', async () => {
    const s = await levelDedup(input, join(dir, 'level.out'), Infinity, { batchSize: 1000 });
    assert.deepEqual(lines(join(dir, 'level.out')), expected);
    assert.equal(s.unique, expected.length);
  });

  it('level peer stops at --max-links and says it was truncated', async () => {
    const s = await levelDedup(input, join(dir, 'level5k.out'), 5000);
    assert.equal(s.links, 5000);
    assert.equal(s.truncated, true);
  });
});

describe('DuckDB peer', () => {
  let duck: typeof import('@duckdb/node-api') | null = null;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'drum-bench-duck-'));
    duck = await import('@duckdb/node-api').catch(() => null);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('emits the first occurrences in input order, then only what a second batch adds', async (t) => {
    if (duck === null) {
      if (process.env.CI) assert.fail('@duckdb/node-api did not load under CI (npm ci installs it as a dev dependency)');
      t.skip('@duckdb/node-api not installed: npm install --save-dev @duckdb/node-api');
      return;
    }
    const a = join(dir, 'a.txt');
    const b = join(dir, 'b.txt');
    const textA = 'http://a.example/x\r\n\nhttp://a.example/x\nhttp://b.example/é\nhttp://c.example/\n';
    const textB = 'http://c.example/\nhttp://d.example/\nhttp://b.example/é\nhttp://d.example/\n';
    writeFileSync(a, textA);
    writeFileSync(b, textB);
    const db = join(dir, 'seen.duckdb');
    const s1 = await duckDbDedup(a, join(dir, 'a.out'), { db, memoryLimit: '256MB', fresh: true });
    assert.deepEqual(lines(join(dir, 'a.out')), modelDedup(textA));
    assert.equal(s1.unique, 3);
    const s2 = await duckDbDedup(b, join(dir, 'b.out'), { db, memoryLimit: '256MB' });
    assert.deepEqual(lines(join(dir, 'b.out')), ['http://d.example/']);
    assert.equal(s2.unique, 1);
  });
});

describe('bench repeats', () => {
  it('keeps the median run\'s times and the worst peak RSS of the repeats', () => {
    const row = (wallMs: number, peakRssBytes: number): BenchRow => ({
      id: 'drum', dataset: 'main', label: 'drum', links: 1, wallMs, linksPerSec: null, cpuMs: wallMs, cpuPct: null,
      peakRssBytes, bytesWritten: null, unique: null, ratioToSort: null, extrapolated: false, status: 'ok', note: '',
    });
    const m = medianRow([row(5000, 100), row(3000, 300), row(4000, 200)]);
    assert.equal(m.wallMs, 4000);
    assert.equal(m.cpuMs, 4000);
    assert.equal(m.peakRssBytes, 300);
    assert.match(m.note, /median of 3 \(5\.0\/3\.0\/4\.0 s\)/);
  });
});
