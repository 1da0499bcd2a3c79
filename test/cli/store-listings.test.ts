// Tests of the CLI's store listings (store-listings.ts): `drum runs` rows
// with their counts, skipped inputs and output directories, `drum hosts`
// ranked with right-aligned counts (a million rows too), `drum stats` with
// the disk by part and the key journal, and the verify summary line.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatHosts, formatRuns, formatStats, formatVerify } from '../../src/cli/store-listings.js';

describe('listings', () => {
  it('lists runs with their counts and skipped inputs', () => {
    const text = formatRuns([{
      runId: 'r1', startedAt: '2025-01-01T00:00:00.000Z', finishedAt: '2025-01-01T00:00:02.000Z', status: 'complete',
      inputs: [{ path: '/a', bytes: 1, sha256: null }, { path: '/b', bytes: 1, sha256: null, skipped: true }],
      counts: { linksRead: 1000, uniqueUrls: 600, duplicateUrls: 390, rejectedLines: 10 },
      outDir: '/o', outputFiles: [], options: {},
    }]);
    assert.match(text, /r1\s+complete\s+2025-01-01T00:00:00.000Z\s+2\.00 s\s+1,000\s+600\s+390\s+10\s+\/a \/b \(skipped\)/);
    assert.equal(formatRuns([]), 'no runs yet\n');
  });

  it("names each run's output directory, where an interrupted or abandoned run's URLs are", () => {
    const text = formatRuns([{
      runId: 'r2', startedAt: '2025-01-01T00:00:00.000Z', finishedAt: null, status: 'abandoned',
      inputs: [{ path: '-', bytes: 0, sha256: null }], counts: { linksRead: 10, uniqueUrls: 7, duplicateUrls: 3, rejectedLines: 0 },
      outDir: '/data/out1', outputFiles: [], options: {},
    }]);
    assert.match(text, /\boutput\b/);
    assert.match(text, /r2\s+abandoned\s+.*\s7\s+3\s+0\s+-\s+\/data\/out1/);
  });

  it('ranks hosts with right-aligned counts', () => {
    const text = formatHosts([{ host: 'a.example', uniqueUrls: 12345 }, { host: 'b.example', uniqueUrls: 7 }]);
    assert.deepEqual(text.split('\n').slice(1, 3), ['   1       12,345  a.example', '   2            7  b.example']);
  });

  it('lists a million hosts, as `drum hosts --top 1000000` asks', () => {
    const hosts = Array.from({ length: 1_000_000 }, (_, i) => ({ host: `h${i}.example`, uniqueUrls: 1_000_000 - i }));
    const lines = formatHosts(hosts).split('\n');
    assert.equal(lines.length, 1_000_002);
    assert.equal(lines[1_000_000], '1000000            1  h999999.example');
  });

  it('shows store stats and whether verify found the store sound', () => {
    const s = formatStats({
      stateDir: '/s', formatVersion: 1, storeUrls: 5_000_000, storeBytes: 40e6, valuesBytes: 0, files: 65, buckets: 64, hostBits: 24,
      policy: 'default/v1', expectedCollisions: 0.0007, bloom: null, journal: null, recentRuns: [],
      disk: { totalBytes: 60e6, store: 40e6, bloom: 0, urls: 0, hosts: 0, caches: 19 * 1024 * 1024, catalog: 1e5, runs: 0, work: 0, other: 4096 },
    });
    assert.match(s, /URLs stored\s+5,000,000/);
    assert.match(s, /store size\s+38\.1 MiB in 65 files \(8\.00 B per URL\)/);
    assert.match(s, /disk used: 57\.2 MiB\n/);
    assert.match(s, /caches\s+19\.0 MiB \(33\.2%\)\s+tiers\.cache, memo\.cache/);
    assert.match(s, /policy\s+default\/v1/);
    assert.match(s, /key journal\s+empty/);
    const j = formatStats({
      stateDir: '/s', formatVersion: 1, storeUrls: 41_000, storeBytes: 1312048, valuesBytes: 0, files: 1, buckets: 64, hostBits: 24,
      policy: 'default/v1', expectedCollisions: 0, bloom: null, journal: { keys: 41_000, bytes: 1312048 }, recentRuns: [],
      disk: { totalBytes: 2e6, store: 1312048, bloom: 0, urls: 0, hosts: 0, caches: 0, catalog: 1e5, runs: 0, work: 0, other: 0 },
    });
    const v = formatStats({
      stateDir: '/s', formatVersion: 1, storeUrls: 1_000_000, storeBytes: 32e6, valuesBytes: 24e6, files: 128, buckets: 64, hostBits: 24,
      policy: 'default/v1', expectedCollisions: 0, bloom: null, journal: null, recentRuns: [],
      disk: { totalBytes: 60e6, store: 32e6, bloom: 0, urls: 20e6, hosts: 4e6, caches: 0, catalog: 1e5, runs: 0, work: 0, other: 4096 },
    });
    assert.match(v, /store size\s+30\.5 MiB in 128 files \(32\.00 B per URL, 24\.00 of them values\)/);
    assert.match(v, /URL log\s+19\.1 MiB \(33\.3%\)/);
    assert.match(v, /host table\s+3\.81 MiB/);
    assert.match(j, /key journal\s+41,000 URLs not yet folded into the key files \(1\.25 MiB; drum compact folds them now\)/);
    // A store without a Bloom file says when it gets one.
    assert.match(j, /bloom\s+none on disk: every URL is in the key journal, whose first fold writes one/);
    assert.match(s, /bloom\s+none \(drum repair --bloom builds one/);
    assert.match(formatVerify({ ok: true, filesChecked: 3, keysChecked: 10, problems: [] }), /^sound: 3 files/);
    assert.match(formatVerify({ ok: false, filesChecked: 3, keysChecked: 10, problems: [{ file: 'f', code: 'DRUM_CORRUPT_FILE', message: 'm' }] }), /^NOT SOUND \(1 problem\)/);
  });
});
