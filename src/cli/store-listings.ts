// The CLI's listings of a store, as plain text: `drum stats` (the store, the
// disk it uses by part, recent runs), `drum runs`, `drum hosts` and the
// `drum verify` summary line. Pure functions from data to a string ending in
// a newline; no I/O, no JSON (callers print JSON). The run report is in
// report-table.ts.

import type { StoreStats, VerifyResult } from '../engine/api.js';
import type { HostCount, RunRecord } from '../catalog/catalog.js';
import { fmtBytes, fmtCount, fmtDuration, fmtInt, fmtPct } from './format.js';
import { section, statusWithDamage, table } from './text-layout.js';

/** The stats line of a store without a Bloom file: when it gets one. */
function noBloom(s: StoreStats): string {
  if (s.storeUrls === 0) return 'none (a run with --bloom gate|lossy builds one)';
  if (s.journal !== null && s.journal.keys === s.storeUrls) return "none on disk: every URL is in the key journal, whose first fold writes one (a run with --bloom gate|lossy builds one in RAM for its new keys)";
  return 'none (drum repair --bloom builds one; a run with --bloom gate|lossy, at its first merge)';
}

/** Bytes per stored URL, and the values files' share when the store has them. */
function storePerUrl(s: StoreStats): string {
  if (s.storeUrls === 0) return 'empty';
  const per = (n: number): string => (n / s.storeUrls).toFixed(2);
  return s.valuesBytes === 0 ? `${per(s.storeBytes)} B per URL` : `${per(s.storeBytes)} B per URL, ${per(s.valuesBytes)} of them values`;
}

export function formatStats(s: StoreStats): string {
  const rows: [string, string][] = [
    ['state directory', s.stateDir],
    ['format version', String(s.formatVersion)],
    ['URLs stored', fmtInt(s.storeUrls)],
    ['store size', `${fmtBytes(s.storeBytes)} in ${fmtCount(s.files, 'file')} (${storePerUrl(s)})`],
    ['buckets', fmtInt(s.buckets)],
    ['host bits', String(s.hostBits)],
    ['policy', s.policy],
    ['expected collisions', s.expectedCollisions.toPrecision(3)],
    ['key journal', s.journal === null ? 'empty' : `${fmtInt(s.journal.keys)} URLs not yet folded into the key files (${fmtBytes(s.journal.bytes)}; drum compact folds them now)`],
    [
      'bloom',
      s.bloom
        ? `${fmtBytes(s.bloom.sizeBytes)}, ${s.bloom.bitsPerKey} bits/key, ${fmtInt(s.bloom.keys)} keys, expected fp ${fmtPct(s.bloom.expectedFpRate)}`
        : noBloom(s),
    ],
  ];
  let text = section('store', rows);
  const d = s.disk;
  const pct = (n: number) => (d.totalBytes > 0 ? ` (${fmtPct(n / d.totalBytes)})` : '');
  text +=
    '\n' +
    section(`disk used: ${fmtBytes(d.totalBytes)}`, [
      ['store files (keys, values, journal)', `${fmtBytes(d.store)}${pct(d.store)}`],
      ['bloom filter', `${fmtBytes(d.bloom)}${pct(d.bloom)}`],
      ['URL log', `${fmtBytes(d.urls)}${pct(d.urls)}  urls/: the text of every docID`],
      ['host table', `${fmtBytes(d.hosts)}${pct(d.hosts)}  hosts/`],
      ['caches', `${fmtBytes(d.caches)}${pct(d.caches)}  tiers.cache, memo.cache, verified.cache: warm starts, deletable`],
      ['run catalog', `${fmtBytes(d.catalog)}${pct(d.catalog)}`],
      ['run outputs', `${fmtBytes(d.runs)}${pct(d.runs)}  runs/ (outputs written with --out elsewhere not counted)`],
      ['work area', `${fmtBytes(d.work)}${pct(d.work)}`],
      ['other', `${fmtBytes(d.other)}${pct(d.other)}  MANIFEST, writer-lock/, content/ (drum content's store)`],
    ]);
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

/** A run's status as listed: `complete (1 damaged input)` when inputs ended in an error (their complete lines were kept). */
export function runStatusText(r: RunRecord): string {
  const damaged = r.inputs.filter((i) => i.damaged !== undefined).length;
  return statusWithDamage(r.status, damaged);
}

function inputText(i: RunRecord['inputs'][number]): string {
  if (i.skipped) return `${i.path} (skipped)`;
  if (i.damaged) return `${i.path} (damaged after line ${fmtInt(i.damaged.line)})`;
  return i.path;
}

/** A count a rebuilt run record could not learn (null) reads `?`. */
function knownInt(n: number | null): string {
  return n === null ? '?' : fmtInt(n);
}

export function formatRuns(runs: readonly RunRecord[]): string {
  if (runs.length === 0) return 'no runs yet\n';
  const unknown = runs.some((r) => r.counts.duplicateUrls === null || r.counts.rejectedLines === null);
  return table(
    ['run', 'status', 'started', 'elapsed', 'links', 'unique', 'dup', 'rejected', 'inputs', 'output'],
    runs.map((r) => r.kind === 'forget' ? forgetRow(r) : [
      r.runId,
      runStatusText(r),
      r.startedAt,
      r.finishedAt ? fmtDuration(Date.parse(r.finishedAt) - Date.parse(r.startedAt)) : '-',
      fmtInt(r.counts.linksRead),
      fmtInt(r.counts.uniqueUrls),
      knownInt(r.counts.duplicateUrls),
      knownInt(r.counts.rejectedLines),
      r.inputs.map(inputText).join(' '),
      r.outDir,
    ]),
    new Set([4, 5, 6, 7]),
  ) + (unknown ? '? not known: the record was rebuilt from the store and the run\'s report.json is gone; dup + rejected = links - unique\n' : '');
}

/** A forget's row: links = URLs asked, unique = minus the URLs it removed, dup = those the store did not hold; the inputs under 'forget'. */
function forgetRow(r: RunRecord): string[] {
  const f = r.forget!;
  return [
    r.runId, r.status, r.startedAt, r.finishedAt ? fmtDuration(Date.parse(r.finishedAt) - Date.parse(r.startedAt)) : '-',
    fmtInt(f.asked), `-${fmtInt(f.forgotten)}`, fmtInt(f.notStored + f.repeats), fmtInt(f.rejectedLines),
    `forget ${[...(f.hosts ?? []).map((h) => `--host ${h.host}`), ...r.inputs.map((i) => i.path)].join(' ')}`, r.outDir,
  ];
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
  const skipped = (v.notChecked ?? []).map((p) => `not checked: ${p.file} (${p.message})\n`).join('');
  return `${v.ok ? 'sound' : `NOT SOUND (${problems})`}: ${fmtInt(v.filesChecked)} files, ${fmtInt(v.keysChecked)} keys checked\n${skipped}`;
}
