// Plain-text formatters for what the CLI prints on stdout: the end-of-run
// table of a RunReport, and the `stats`, `runs`, `hosts` and `verify`
// listings. Pure functions from data to a string ending in a newline; no
// I/O, no colours (output is often piped), no JSON (callers print JSON).

import type { RunReport, StoreStats, VerifyResult } from '../engine/api.js';
import type { HostCount, RunRecord } from '../catalog/catalog.js';

/** Mercator's measured disk seeks per URL test (Heydon & Najork 1999), for comparison. */
export const MERCATOR_SEEKS_PER_URL = 0.16;

export function fmtInt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : String(n);
}

export function fmtBytes(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
}

/** A fraction in [0, 1] as a percentage. */
export function fmtPct(f: number): string {
  return Number.isFinite(f) ? `${(f * 100).toFixed(1)}%` : '-';
}

export function fmtDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 2 : 1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

function rate(hits: number, lookups: number): string {
  return lookups > 0 ? fmtPct(hits / lookups) : '-';
}

/** Two-column section: a title line, then `label  value` rows with labels padded. */
function section(title: string, rows: [string, string][]): string {
  const w = Math.max(...rows.map(([l]) => l.length));
  return `${title}\n${rows.map(([l, v]) => `  ${l.padEnd(w)}  ${v}`).join('\n')}\n`;
}

/** A table with a header row; numbers (columns in `right`) right-aligned. */
export function table(header: string[], rows: string[][], right: ReadonlySet<number> = new Set()): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** One line: how the parse stage was split between the worker threads and the main thread. */
function parseSplit(p: RunReport['parseSplit']): string {
  const all = p.chunksOnWorkers + p.chunksOnMain;
  if (all === 0) return '(no chunks)';
  const workers = `${p.workers} worker${p.workers === 1 ? '' : 's'}`;
  return `${fmtInt(p.chunksOnWorkers)} chunks on ${workers} (${fmtDuration(p.workerMs)} busy), ${fmtInt(p.chunksOnMain)} on the main thread (${fmtDuration(p.mainMs)})`;
}

/** The readable end-of-run report. */
export function formatRunReport(r: RunReport): string {
  if (r.status === 'skipped') {
    return `drum run ${r.runId}: nothing to do, every input was already ingested into this store (--force ingests again)\n`;
  }
  const out: string[] = [];
  const status = r.status === 'complete' ? '' : ` (${r.status})`;
  out.push(`drum run ${r.runId}${status}${r.lossy ? '  [LOSSY: bloom may have dropped new URLs]' : ''}\n`);
  const links: [string, string][] = [
    ['links read', fmtInt(r.linksRead)],
    ['unique (new) URLs', fmtInt(r.uniqueUrls)],
    ['duplicate URLs', fmtInt(r.duplicateUrls)],
    ['rejected lines', fmtInt(r.rejectedLines)],
  ];
  for (const [reason, n] of Object.entries(r.rejectsByReason).sort((a, b) => b[1] - a[1])) {
    links.push([`  ${reason}`, fmtInt(n)]);
  }
  out.push(section('links', links));
  const t = r.tiers;
  const b = t.bloom;
  const tiers: [string, string][] = [
    ['line memo', `${fmtInt(t.lineMemo.hits)} of ${fmtInt(t.lineMemo.lookups)} raw lines repeat a line seen before (${rate(t.lineMemo.hits, t.lineMemo.lookups)}, ${fmtInt(t.lineMemo.entries)} entries × ${t.lineMemo.threads} threads)`],
    ['chunk repeats', `${fmtInt(t.chunkDedup.hits)} of ${fmtInt(t.chunkDedup.lookups)} links repeat a link of their chunk (${rate(t.chunkDedup.hits, t.chunkDedup.lookups)})`],
    ['hot cache', `${fmtInt(t.hotCache.hits)} hits / ${fmtInt(t.hotCache.lookups)} lookups  (${rate(t.hotCache.hits, t.hotCache.lookups)}, ${fmtInt(t.hotCache.entries)} entries)`],
    ['recent table', `${fmtInt(t.recentTable.hits)} hits / ${fmtInt(t.recentTable.lookups)} lookups  (${rate(t.recentTable.hits, t.recentTable.lookups)}, ${fmtInt(t.recentTable.entries)} entries)`],
  ];
  if (b.mode === 'off') tiers.push(['bloom', 'off']);
  else {
    tiers.push([`bloom (${b.mode})`, `${fmtInt(b.definitelyNew)} definitely new, ${fmtInt(b.maybeSeen)} maybe seen, ${fmtInt(b.falsePositives)} false positives`]);
    tiers.push(['bloom fp rate', `${fmtPct(b.observedFpRate)} observed, ${fmtPct(b.expectedFpRate)} expected (${b.bitsPerKey} bits/key, ${fmtBytes(b.sizeBytes)})`]);
    if (b.mode === 'lossy') tiers.push(['wrongly dropped', `~${fmtInt(b.expectedWronglyDropped)} new URLs expected`]);
  }
  tiers.push(['answered in RAM', `${fmtPct(r.answeredInRam)} of URL tests (Mercator: 75.7%)`]);
  out.push(section('tiers', tiers));
  out.push(
    section('disk & io', [
      ['disk lookups', `${fmtInt(r.disk.lookups)} (${fmtInt(r.disk.hits)} found)`],
      ['merges', fmtInt(r.io.merges)],
      ['spills', fmtInt(r.io.spills)],
      ['seeks', `${fmtInt(r.io.seeks)} (${fmtInt(r.io.fileOpens)} file opens)`],
      ['seeks per URL', `${r.seeksPerUrl.toPrecision(3)} (Mercator: ${MERCATOR_SEEKS_PER_URL})`],
      ['bytes read', fmtBytes(r.io.bytesRead)],
      ['bytes written', fmtBytes(r.io.bytesWritten)],
    ]),
  );
  out.push(section('store', [['URLs stored', fmtInt(r.storeUrls)]]));
  out.push(
    section('speed', [
      ['elapsed', fmtDuration(r.elapsedMs)],
      ['links/s', fmtInt(r.linksPerSecond)],
      ['peak RSS', fmtBytes(r.peakRssBytes)],
      ['parse split', parseSplit(r.parseSplit)],
    ]),
  );
  const mem: [string, string][] = [['budget', fmtBytes(r.memory.budgetBytes)]];
  for (const [part, bytes] of Object.entries(r.memory.split)) mem.push([part, fmtBytes(bytes)]);
  out.push(section('memory', mem));
  const files = r.outputFiles;
  const skipped = r.inputs.filter((i) => i.skipped).map((i) => i.path);
  const outputs: [string, string][] = [
    ['directory', r.outDir],
    ['files', files.length <= 4 ? files.join(', ') || '(none)' : `${files.slice(0, 2).join(', ')}, ... ${files[files.length - 1]} (${files.length})`],
  ];
  if (skipped.length > 0) outputs.push(['skipped inputs', `${skipped.join(', ')} (already ingested; --force to redo)`]);
  out.push(section('outputs', outputs));
  return out.join('\n');
}

export function formatStats(s: StoreStats): string {
  const rows: [string, string][] = [
    ['state directory', s.stateDir],
    ['format version', String(s.formatVersion)],
    ['URLs stored', fmtInt(s.storeUrls)],
    ['store size', `${fmtBytes(s.storeBytes)} in ${fmtInt(s.files)} files`],
    ['buckets', fmtInt(s.buckets)],
    ['host bits', String(s.hostBits)],
    ['policy', s.policy],
    ['expected collisions', s.expectedCollisions.toPrecision(3)],
    [
      'bloom',
      s.bloom
        ? `${fmtBytes(s.bloom.sizeBytes)}, ${s.bloom.bitsPerKey} bits/key, ${fmtInt(s.bloom.keys)} keys, expected fp ${fmtPct(s.bloom.expectedFpRate)}`
        : 'none',
    ],
  ];
  let text = section('store', rows);
  if (s.recentRuns.length > 0) {
    text +=
      '\nrecent runs\n' +
      table(
        ['run', 'status', 'started', 'links', 'unique'],
        s.recentRuns.map((r) => [r.runId, r.status, r.startedAt, fmtInt(r.linksRead), fmtInt(r.uniqueUrls)]),
        new Set([3, 4]),
      );
  }
  return text;
}

export function formatRuns(runs: readonly RunRecord[]): string {
  if (runs.length === 0) return 'no runs yet\n';
  return table(
    ['run', 'status', 'started', 'elapsed', 'links', 'unique', 'dup', 'rejected', 'inputs', 'output'],
    runs.map((r) => [
      r.runId,
      r.status,
      r.startedAt,
      r.finishedAt ? fmtDuration(Date.parse(r.finishedAt) - Date.parse(r.startedAt)) : '-',
      fmtInt(r.counts.linksRead),
      fmtInt(r.counts.uniqueUrls),
      fmtInt(r.counts.duplicateUrls),
      fmtInt(r.counts.rejectedLines),
      r.inputs.map((i) => (i.skipped ? `${i.path} (skipped)` : i.path)).join(' '),
      r.outDir,
    ]),
    new Set([4, 5, 6, 7]),
  );
}

export function formatHosts(hosts: readonly HostCount[]): string {
  if (hosts.length === 0) return 'no hosts yet\n';
  return table(
    ['rank', 'unique URLs', 'host'],
    hosts.map((h, i) => [String(i + 1), fmtInt(h.uniqueUrls), h.host]),
    new Set([0, 1]),
  );
}

/** The verify summary line; each problem goes to stderr separately (commands.ts). */
export function formatVerify(v: VerifyResult): string {
  const problems = v.problems.length === 1 ? '1 problem' : `${v.problems.length} problems`;
  return `${v.ok ? 'sound' : `NOT SOUND (${problems})`}: ${fmtInt(v.filesChecked)} files, ${fmtInt(v.keysChecked)} keys checked\n`;
}
