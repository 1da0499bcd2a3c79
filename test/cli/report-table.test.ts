// Tests of the CLI's run report and progress line: the end-of-run table
// shows the key figures of a RunReport (the store listings are tested in
// store-listings.test.ts), and progress draws only on a TTY, throttled, and
// clears itself.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RunReport } from '../../src/stats/report.js';
import { fmtBytes, fmtDuration, fmtInt, fmtPct, fmtRate } from '../../src/cli/format.js';
import { formatRunReport } from '../../src/cli/report-table.js';
import { ProgressLine, renderProgress } from '../../src/cli/progress.js';

function sampleReport(over: Partial<RunReport> = {}): RunReport {
  return {
    runId: '20250101T000000Z-abc',
    status: 'complete',
    lossy: false,
    policy: 'default/v1',
    inputs: [{ path: '/in/a.txt', bytes: 1234, sha256: 'ab'.repeat(32), skipped: false }],
    linksRead: 38277,
    uniqueUrls: 20001,
    revisitUrls: 0,
    duplicateUrls: 18000,
    rejectedLines: 276,
    rejectsByReason: { 'unsupported-scheme': 270, 'invalid-host': 6 },
    tiers: {
      lineMemo: { lookups: 38001, hits: 0, hitRate: 0, entries: 1048576, threads: 2 },
      chunkDedup: { lookups: 38001, hits: 0, hitRate: 0 },
      hotCache: { lookups: 38001, hits: 12000, hitRate: 12000 / 38001, entries: 262144 },
      recentTable: { lookups: 26001, hits: 6000, hitRate: 6000 / 26001, entries: 1048576 },
      journal: { lookups: 20001, hits: 0, hitRate: 0, keys: 0, rounds: 0, folds: 0 },
      bloom: {
        mode: 'gate', bitsPerKey: 10, sizeBytes: 65536, definitelyNew: 19000, maybeSeen: 1001, falsePositives: 9, notAdded: 0,
        observedFpRate: 0.0087, expectedFpRate: 0.0082, expectedWronglyDropped: 0,
      },
    },
    answeredInRam: 0.4737,
    disk: { lookups: 1001, hits: 992 },
    io: { merges: 3, spills: 7, seeks: 64, fileOpens: 12, bytesRead: 5 * 1024 * 1024, bytesWritten: 3 * 1024 * 1024 },
    seeksPerUrl: 0.00167,
    storeUrls: 20001,
    memory: { budgetBytes: 256 * 1024 * 1024, split: { buckets: 200 * 1024 * 1024, hotCache: 4 * 1024 * 1024 } },
    outDir: '/state/runs/20250101T000000Z-abc',
    outputFiles: ['unique-00000.txt', 'unique-00001.txt'],
    elapsedMs: 1520,
    linksPerSecond: 25182,
    peakRssBytes: 150 * 1024 * 1024,
    stages: {},
    parseSplit: { workers: 1, chunksOnWorkers: 380, chunksOnMain: 207, workerMs: 5100, mainMs: 2600 },
    inputErrors: [],
    ...over,
  };
}

describe('number formatting', () => {
  it('groups thousands, scales bytes by 1024 and shows durations in the largest sensible unit', () => {
    assert.equal(fmtInt(1234567), '1,234,567');
    assert.equal(fmtBytes(512), '512 B');
    assert.equal(fmtBytes(1536), '1.50 KiB');
    assert.equal(fmtBytes(300 * 1024 * 1024), '300.0 MiB');
    assert.equal(fmtDuration(250), '250 ms');
    assert.equal(fmtDuration(1520), '1.52 s');
    assert.equal(fmtDuration(125_000), '2m05s');
    assert.equal(fmtPct(0.2362), '23.6%');
    assert.equal(fmtRate(12_345), '12.3k');
  });
});

describe('run report summary', () => {
  const text = formatRunReport(sampleReport());

  it('lists the inputs, links read, new, duplicates and each reject reason, the store size, time and rate', () => {
    assert.match(text, /^drum run 20250101T000000Z-abc: complete\n/);
    assert.match(text, /inputs\s+\/in\/a\.txt \(1\.21 KiB\)\n/);
    assert.match(text, /links read\s+38,277\n/);
    assert.match(text, /new URLs\s+20,001 \(52\.3% of links\)\n/);
    assert.match(text, /duplicates\s+18,000\n/);
    assert.match(text, /rejected lines\s+276\n\s+unsupported-scheme\s+270\n\s+invalid-host\s+6\n/);
    assert.match(text, /URLs stored\s+20,001\n/);
    assert.match(text, /time\s+1\.52 s, 25,182 links\/s, peak RSS 150\.0 MiB\n/);
  });

  it('names the files: the new URLs, rejects.tsv and report.json in the output directory', () => {
    assert.match(text, /new URLs in\s+\/state\/runs\/20250101T000000Z-abc\/ unique-00000\.txt, unique-00001\.txt\n/);
    assert.match(text, /rejects in\s+\/state\/runs\/20250101T000000Z-abc\/rejects\.tsv\n/);
    assert.match(text, /report in\s+\/state\/runs\/20250101T000000Z-abc\/report\.json\n/);
    assert.doesNotMatch(text, /revisit URLs in/);
  });

  it('names the revisit files of a run that found URLs due again', () => {
    const r = sampleReport({ revisitUrls: 7 });
    assert.match(formatRunReport(r), /revisit URLs in\s+\/state\/runs\/20250101T000000Z-abc\/ revisit-\*\.txt\n/);
  });

  it('keeps the internals for --verbose: no tiers, seeks or memory split by default', () => {
    for (const s of ['hot cache', 'seeks per URL', 'Mercator', 'line memo', 'memory', 'parse split']) assert.ok(!text.includes(s), s);
    assert.ok(text.split('\n').length <= 20, `a short summary: ${text.split('\n').length} lines`);
  });

  it('marks skipped inputs and summarises a long input list', () => {
    const many = Array.from({ length: 9 }, (_, i) => ({ path: `/in/${i}.txt`, bytes: 1024, sha256: null, skipped: i === 0 }));
    const t = formatRunReport(sampleReport({ inputs: many }));
    assert.match(t, /inputs\s+\/in\/0\.txt \(skipped: already ingested, --force to redo\)\n\s+\/in\/1\.txt \(1\.00 KiB\)/);
    assert.match(t, /\.\.\. and 5 more \(5\.00 KiB\)/);
  });

  it('says a run whose input broke part-way is complete with a damaged input, and after which line it broke', () => {
    const inputs = [{ path: '/in/a.txt', bytes: 1234, sha256: null, skipped: false }, { path: '/in/cut.gz', bytes: 2048, sha256: null, skipped: false }];
    const inputErrors = [{ path: '/in/cut.gz', code: 'DRUM_INPUT', message: 'cannot decompress', input: 1, offset: 900, line: 9834 }];
    const t = formatRunReport(sampleReport({ inputs, inputErrors }));
    assert.match(t, /^drum run 20250101T000000Z-abc: complete \(1 damaged input\)\n/);
    assert.match(t, /inputs\s+\/in\/a\.txt \(1\.21 KiB\)\n\s+\/in\/cut\.gz \(2\.00 KiB, damaged after line 9,834\)\n/);
    assert.doesNotMatch(text, /damaged/, 'a sound run says nothing of damage');
  });

  it('says stdin for an input read from stdin, which has no size on disk', () => {
    const t = formatRunReport(sampleReport({ inputs: [{ path: '-', bytes: 0, sha256: null, skipped: false }] }));
    assert.match(t, /inputs\s+- \(stdin\)\n/);
  });
});

describe('run report details (--verbose)', () => {
  const text = formatRunReport(sampleReport(), { verbose: true });

  it('shows the link counts and each reject reason', () => {
    for (const s of ['38,277', '20,001', '18,000', '276', 'unsupported-scheme', '270', 'invalid-host']) assert.ok(text.includes(s), s);
  });

  it('shows tier hit rates, the bloom figures and the share answered in RAM', () => {
    assert.match(text, /hot cache\s+12,000 hits \/ 38,001 lookups\s+\(31\.6%/);
    assert.match(text, /recent table\s+6,000 hits \/ 26,001 lookups\s+\(23\.1%/);
    assert.match(text, /bloom \(gate\)\s+19,000 definitely new, 1,001 maybe seen, 9 false positives/);
    assert.match(text, /bloom fp rate\s+0\.9% observed, 0\.8% expected at its fill/);
    assert.doesNotMatch(text, /bloom full/, 'a filter that never filled up');
    assert.match(text, /answered in RAM\s+47\.4%/);
  });

  it('shows io, seeks per URL beside Mercator, speed, memory split and outputs', () => {
    assert.match(text, /merges\s+3\n/);
    assert.match(text, /seeks per URL\s+0\.00167 \(Mercator: 0\.16\)/);
    assert.match(text, /links\/s\s+25,182/);
    assert.match(text, /peak RSS\s+150\.0 MiB/);
    assert.match(text, /parse split\s+380 chunks on 1 worker \(5\.10 s busy\), 207 on the main thread \(2\.60 s\)/);
    assert.match(text, /buckets\s+200\.0 MiB/);
    assert.ok(text.includes('unique-00000.txt, unique-00001.txt'));
  });

  it('marks a lossy run and names skipped inputs', () => {
    const r = sampleReport({ lossy: true, inputs: [{ path: '/old.txt', bytes: 1, sha256: null, skipped: true }] });
    r.tiers.bloom.mode = 'lossy';
    r.tiers.bloom.expectedWronglyDropped = 12;
    r.tiers.bloom.notAdded = 5000;
    const t = formatRunReport(r, { verbose: true });
    assert.ok(t.includes('LOSSY'));
    assert.match(t, /wrongly dropped\s+~12 new URLs/);
    assert.match(t, /bloom full\s+held the keys it was sized for: 5,000 new keys not added, answered at its design rate/);
    assert.match(t, /skipped inputs\s+\/old\.txt/);
  });

  it('says bloom off when the bloom filter is off', () => {
    const r = sampleReport();
    r.tiers.bloom.mode = 'off';
    assert.match(formatRunReport(r, { verbose: true }), /bloom\s+off/);
  });
});

describe('progress line', () => {
  const p = { phase: 'reading' as const, bytesRead: 256 * 1024 * 1024, bytesTotal: 1024 * 1024 * 1024, links: 1_000_000, elapsedMs: 10_000 };

  it('renders bytes of total, links/s, ETA and phase', () => {
    const line = renderProgress(p, 200);
    assert.match(line, /^reading /);
    assert.ok(line.includes('256.0 MiB / 1.00 GiB 25.0%'), line);
    assert.ok(line.includes('100.0k links/s'), line);
    assert.ok(line.includes('ETA 30.0 s'), line);
    assert.ok(!renderProgress({ ...p, bytesTotal: null }, 200).includes('ETA'));
    assert.ok(renderProgress(p, 30).length <= 30);
  });

  it('writes nothing when stderr is not a TTY', () => {
    const out: string[] = [];
    const line = new ProgressLine({ isTTY: false, write: (s: string) => out.push(s) }, true);
    line.update(p);
    line.done();
    assert.deepEqual(out, []);
  });

  it('redraws at most once per 200 ms on a TTY and clears the line at the end', () => {
    const out: string[] = [];
    let t = 0;
    const line = new ProgressLine({ isTTY: true, columns: 120, write: (s: string) => out.push(s) }, true, () => t);
    for (t = 1000; t < 2000; t += 10) line.update(p);
    assert.equal(out.length, 5);
    assert.ok(out.every((s) => s.startsWith('\r')));
    line.done();
    assert.equal(out[out.length - 1], '\r\x1b[K');
  });

  it('stays silent on a TTY when disabled (--no-progress / --quiet)', () => {
    const out: string[] = [];
    new ProgressLine({ isTTY: true, write: (s: string) => out.push(s) }, false).update(p);
    assert.deepEqual(out, []);
  });
});
