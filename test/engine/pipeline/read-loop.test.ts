// Tests of the read loop end to end (ingest and check): inputs cut into many
// tiny chunks, read with reused buffers and parsed in recycled slabs on a
// worker and on the main thread, give exactly a Set model's new URLs in
// first-arrival order and its rejects, with or without a worker or line memo;
// a parse-bound run shares its parsing with the main thread.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { DrumOptions } from '../../../src/options.js';
import { tempDir } from '../../helpers/tmp.js';
import { withDrum } from '../../helpers/drum.js';

// Canonical URLs, a variant the default policy folds into each, and a line it rejects.
const POOL = Array.from({ length: 400 }, (_, i) => `http://h${i % 11}.example/p/${Math.floor(i / 11)}${i % 4 === 0 ? '?a=1' : ''}`);
const RAW = [...POOL, ...POOL.map((u, i) => (i % 2 === 0 ? `${u}#frag` : u.replace('http://h', 'HTTP://H'))), 'mailto:nobody@h1.example'];
const canonicalOf = (raw: string): string | null => (raw.startsWith('mailto:') ? null : raw.replace('#frag', '').replace('HTTP://H', 'http://h'));

/** A deterministic stream of raw lines, and what a Set model says about it. */
function input(n: number, salt: number): { text: string; unique: string[]; rejected: number[] } {
  const lines: string[] = [];
  const seen = new Set<string>();
  const unique: string[] = [];
  const rejected: number[] = [];
  for (let i = 0; i < n; i++) {
    const raw = RAW[(i * 7919 + salt * 104729) % RAW.length]!;
    lines.push(raw);
    const u = canonicalOf(raw);
    if (u === null) rejected.push(i + 1);
    else if (!seen.has(u)) {
      seen.add(u);
      unique.push(u);
    }
  }
  return { text: `${lines.join('\n')}\n`, unique, rejected };
}

function uniqueOf(out: string): string[] {
  return fs.readdirSync(out).filter((f) => f.startsWith('unique-')).sort()
    .flatMap((f) => fs.readFileSync(join(out, f), 'utf8').split('\n').filter((l) => l !== ''));
}

function rejectLinesOf(out: string): number[] {
  return fs.readFileSync(join(out, 'rejects.tsv'), 'utf8').split('\n').slice(1).filter((l) => l !== '').map((l) => Number(l.split('\t')[1]));
}

describe('read loop', () => {
  for (const workers of [0, 1]) {
    for (const lineMemoEntries of [0, 1 << 12]) {
      it(`ingests and checks many tiny chunks exactly as a Set model (workers ${workers}, line memo ${lineMemoEntries})`, async () => {
        const dir = tempDir();
        const opts: DrumOptions = { workers, lineMemoEntries, fsync: false, chunkBytes: 1024 };
        const a = input(6000, 1);
        const b = input(4000, 2);
        fs.writeFileSync(join(dir, 'a.txt'), a.text);
        fs.writeFileSync(join(dir, 'b.txt'), b.text);
        const state = join(dir, 'state');
        await withDrum(state, opts, (d) => d.ingest({ inputs: [join(dir, 'a.txt')], outDir: join(dir, 'out-a') }));
        assert.deepEqual(uniqueOf(join(dir, 'out-a')), a.unique);
        assert.deepEqual(rejectLinesOf(join(dir, 'out-a')), a.rejected);
        // b after a: b's new URLs are those a did not have; check says so before ingest does.
        const known = new Set(a.unique);
        const checked: string[] = [];
        await withDrum(state, { ...opts, readOnly: true }, (d) => d.check({ inputs: [join(dir, 'b.txt')], onNew: (u) => checked.push(u) }));
        assert.deepEqual(checked, b.unique.filter((u) => !known.has(u)));
        await withDrum(state, opts, (d) => d.ingest({ inputs: [join(dir, 'b.txt')], outDir: join(dir, 'out-b') }));
        assert.deepEqual(uniqueOf(join(dir, 'out-b')), checked);
        assert.deepEqual(rejectLinesOf(join(dir, 'out-b')), b.rejected);
      });
    }
  }
});

describe('read loop: sharing the parsing', () => {
  it('parses on the main thread too while parsing is the slower stage, with the same new URLs as no worker', async () => {
    const dir = tempDir();
    // The heritrix profile's rules make parsing several times dearer than routing a chunk.
    const lines = Array.from({ length: 60_000 }, (_, i) => `http://Host${i % 97}.example/a/b/../c/${i % 20_011}/index.html?b=${i % 7}&a=${i}&utm_source=x#f`);
    fs.writeFileSync(join(dir, 'in.txt'), `${lines.join('\n')}\n`);
    const opts = (workers: number): DrumOptions => ({ workers, fsync: false, chunkBytes: 64 << 10, canonical: { profile: 'heritrix' } });
    const shared = await withDrum(join(dir, 's1'), opts(1), (d) => d.ingest({ inputs: [join(dir, 'in.txt')], outDir: join(dir, 'o1') }));
    await withDrum(join(dir, 's0'), opts(0), (d) => d.ingest({ inputs: [join(dir, 'in.txt')], outDir: join(dir, 'o0') }));
    assert.ok(shared.parseSplit.chunksOnWorkers > 0 && shared.parseSplit.chunksOnMain > 0, JSON.stringify(shared.parseSplit));
    assert.deepEqual(uniqueOf(join(dir, 'o1')), uniqueOf(join(dir, 'o0')));
  });
});

