// The actions behind the URL store's `drum` commands (ingest, check,
// canonicalize, stats, verify, repair, upgrade, runs, hosts): turn parsed
// options into engine or catalog calls and print results. Each returns the
// exit status. Does not parse argv (main.ts does) or map option values
// (options.ts does); errors propagate to main.ts, which prints them and
// picks the exit status. What the actions share (CliIo, exit statuses) is
// command-io.ts's; the other commands' actions are this folder's other files.
// REQUIRES: stdout/stderr writes are synchronous or buffered by Node.

import { existsSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { DrumError, EXIT_STATUS } from '../../errors.js';
import { Catalog } from '../../catalog/catalog.js';
import { settleRuns } from '../../catalog/run-list.js';
import { readManifest, type ManifestBody } from '../../store/manifest.js';
import { writerLockHeld } from '../../store/lock.js';
import { inputSize } from '../../input/open.js';
import { holdGraphStreams, refuseGraphInputs, type HeldInputs } from '../../engine/jobs/ingest/graph-inputs.js';
import { checkOutDir, checkOutDirPlace, refuseInputsInState } from '../../engine/jobs/ingest/run-setup.js';
import { probeOutDir } from '../../engine/jobs/ingest/run-outputs.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../canonicalize/policy.js';
import { bloomDroppedNote } from './compact-command.js';
import { loadEngine, withDrum, type RepairOutcome } from '../engine.js';
import {
  canonicalFrom,
  drumOptionsFrom,
  ingestRequestFrom,
  inputsFrom,
  isDefaultState,
  limitFrom,
  parseCount,
  readOptionsFrom,
  stateDirFrom,
  topFrom,
  type RawOptions,
} from '../options.js';
import { fmtCount, fmtDuration, fmtInt } from '../format.js';
import { ProgressLine } from '../progress.js';
import { abandonedLine, printRound, resumedLine, stopLine } from '../run-notes.js';
import { inputErrorStatus, json, LineSink, verifyStatus, warnAllRejected, type CliIo, type InputError } from '../command-io.js';
import type { IngestRequest, RunStart } from '../../engine/api.js';
import { removeOwnTemps } from '../../io/private-temp.js';
import { formatRunReport } from '../report-table.js';
import { formatHosts, formatRuns, formatStats, formatVerify } from '../store-listings.js';
import { contentSummary, contentVerify, formatContentSummary, formatContentVerify, urlStoreOrNull } from '../content-summary.js';
import type { ContentVerifyResult } from '../../content/content-verify.js';

/**
 * Says on stderr that a run created a new store in the default state
 * directory, so running from the wrong folder is noticed. A store named with
 * --state or $DRUM_STATE was asked for and is not announced; nor is one when
 * stderr carries the JSON report (--json with --out -), which stays one value.
 */
function announceNewStore(raw: RawOptions, io: CliIo, state: string, existed: boolean): void {
  if (existed || raw.quiet || (raw.json && raw.out === '-') || !isDefaultState(raw, io.env) || !existsSync(state)) return;
  const rel = relative(io.cwd, state);
  const shown = rel === '' || rel.startsWith('..') || isAbsolute(rel) ? state : `./${rel}`;
  io.stderr.write(`drum: created a new store at ${shown}\n`);
}

/**
 * What fails an ingest before a store is created for it (the engine checks
 * again at the run's start): a missing input, one inside the state, an --out
 * in the state or one the OS will not make, a --graph file that is not TSV and values asked of a new
 * keys-only store. (A --graph stream is read ahead later: ingestCommand.)
 */
async function refuseBeforeStore(state: string, req: IngestRequest, raw: RawOptions, maxLineBytes: number): Promise<void> {
  for (const f of req.inputs) await inputSize(f);
  refuseInputsInState(state, req.inputs);
  // An --out in the state's store/, work/ or catalog/ is refused before the store's open empties work/;
  // one the OS will not make, before a new store is made for the run (the probe leaves nothing behind).
  if (req.outDir !== undefined) {
    checkOutDirPlace(state, req.outDir);
    checkOutDir(req.outDir, false);
    probeOutDir(req.outDir);
  }
  if (req.graph === true) await refuseGraphInputs(req, maxLineBytes);
  if (raw.values === false && (req.graph === true || req.revisitAfter !== undefined) && readManifest(state) === null) {
    throw new DrumError('DRUM_BAD_OPTION', `--no-values makes a keys-only store, which keeps no docIDs or emission times: ${req.graph === true ? '--graph' : '--revisit-after'} needs them`);
  }
}

export async function ingestCommand(inputs: string[], raw: RawOptions, io: CliIo): Promise<number> {
  const state = stateDirFrom(raw, io.env, io.cwd);
  const opts = drumOptionsFrom(raw, { cwd: io.cwd });
  // --out - : the new URLs go to stdout as rounds commit (kept in <state>/runs/<run-id>/ too); everything else to stderr.
  const toStdout = raw.out === '-';
  const req = ingestRequestFrom(toStdout ? { ...raw, out: undefined } : raw, inputs, io.cwd);
  const maxLineBytes = opts.canonical?.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  await refuseBeforeStore(state, req, raw, maxLineBytes);
  const progress = new ProgressLine(io.stderr, raw.progress !== false && !raw.quiet);
  let started: RunStart | null = null;
  const off = io.onStop?.((reason) => {
    progress.done();
    if (reason !== 'EPIPE' || !raw.quiet) io.stderr.write(stopLine(reason, state, started));
  });
  const onRunStart = (r: RunStart): void => {
    started = r;
    // Said even under --quiet: these URLs are delivered nowhere else.
    if (r.abandoned !== null) io.stderr.write(abandonedLine(r.abandoned));
    if (toStdout && r.resumed && r.committedUrls > 0) io.stderr.write(resumedLine(r));
  };
  const existed = existsSync(state);
  let held: HeldInputs | null = null;
  let report;
  try {
    // A --graph run's stream inputs are read ahead before the store is opened (or created) and handed to the run:
    // one that is not TSV is refused with no store made for it.
    if (req.graph === true) held = await holdGraphStreams(req, maxLineBytes);
    report = await withDrum(state, opts, (d) => d.ingest({
      ...req, streams: held?.streams, onProgress: (p) => progress.update(p), onRunStart, onCommit: toStdout ? (c) => printRound(c, io.stdout) : undefined,
    }));
  } finally {
    await held?.close();
    progress.done();
    off?.();
    announceNewStore(raw, io, state, existed);
  }
  const out = toStdout ? io.stderr : io.stdout;
  if (raw.json) out.write(JSON.stringify(report) + '\n');
  else if (!raw.quiet) out.write(formatRunReport(report, { verbose: raw.verbose === true }));
  if (!raw.quiet) {
    for (const i of report.inputs) {
      if (i.skipped) io.stderr.write(`drum: skipped ${i.path}: already ingested into this store (--force ingests it again)\n`);
    }
    if (report.lossy) io.stderr.write(`drum: warning: lossy bloom mode; about ${Math.round(report.tiers.bloom.expectedWronglyDropped)} new URLs may have been dropped\n`);
  }
  warnAllRejected(report.linksRead, report.rejectedLines, report.rejectsByReason, io);
  return inputErrorStatus(report.inputErrors, io);
}

export async function checkCommand(inputs: string[], raw: RawOptions, io: CliIo): Promise<number> {
  const state = stateDirFrom(raw, io.env, io.cwd);
  const opts = drumOptionsFrom(raw, { readOnly: true, cwd: io.cwd });
  const req = { inputs: inputsFrom(inputs, io.cwd), ...readOptionsFrom(raw) };
  const sink = new LineSink(io.stdout);
  const t0 = Date.now();
  // A stopped check removes its spill directory before exiting (close() does it otherwise).
  const off = io.onStop?.(() => removeOwnTemps());
  let r;
  try {
    r = await withDrum(state, opts, (d) => d.check({ ...req, onNew: (u) => sink.push(u) }));
    sink.flush();
  } finally {
    off?.();
  }
  if (!raw.quiet) {
    const seen = r.linksRead - r.newUrls - r.rejectedLines;
    io.stderr.write(`drum: check: ${fmtCount(r.linksRead, 'link')} read, ${fmtInt(r.newUrls)} new, ${fmtInt(seen)} seen, ${fmtInt(r.rejectedLines)} rejected\n`);
    if (raw.verbose) {
      const ms = Date.now() - t0;
      io.stderr.write(`drum: check: store ${state}, ${fmtDuration(ms)}, ${fmtInt(ms > 0 ? (r.linksRead * 1000) / ms : 0)} links/s\n`);
    }
  }
  return inputErrorStatus((r as { inputErrors?: InputError[] }).inputErrors, io, false);
}

export async function canonicalizeCommand(inputs: string[], raw: RawOptions, io: CliIo): Promise<number> {
  const canonical = canonicalFrom(raw, io.cwd) ?? {};
  const opts = { canonical, ...readOptionsFrom(raw) };
  const files = inputsFrom(inputs, io.cwd);
  const { canonicalizeLines } = await loadEngine();
  const sink = new LineSink(io.stdout);
  try {
    await canonicalizeLines(files, opts, (line) => sink.push(line));
  } finally {
    sink.flush();
  }
  return 0;
}

export async function statsCommand(raw: RawOptions, io: CliIo): Promise<number> {
  const state = stateDirFrom(raw, io.env, io.cwd);
  const content = contentSummary(state);
  const s = await urlStoreOrNull(content !== null, () => withDrum(state, { readOnly: true }, (d) => d.stats()));
  if (raw.json) json(io, content === null ? s : { ...(s ?? {}), content });
  else io.stdout.write(`${s === null ? 'no URL store\n' : formatStats(s)}${content === null ? '' : formatContentSummary(content)}`);
  return 0;
}

export async function verifyCommand(raw: RawOptions, io: CliIo): Promise<number> {
  const state = stateDirFrom(raw, io.env, io.cwd);
  const { verifyStateDir } = await loadEngine();
  let content: ContentVerifyResult | null;
  try {
    content = contentVerify(state);
  } catch (e) {
    content = { sound: false, problems: [e instanceof Error ? e.message : String(e)], docs: 0, tables: 0 };
  }
  const v = await urlStoreOrNull(content !== null, () => verifyStateDir(state));
  if (raw.json) json(io, content === null ? v : { ...(v ?? {}), content });
  else {
    if (v !== null && (!raw.quiet || !v.ok)) io.stdout.write(formatVerify(v));
    if (content !== null && (!raw.quiet || !content.sound)) io.stdout.write(formatContentVerify(content));
  }
  for (const p of v?.problems ?? []) io.stderr.write(`drum: ${p.code}: ${p.message}${p.message.includes(p.file) ? '' : ` (file: ${p.file})`}\n`);
  if (v !== null && !v.ok) return verifyStatus(v.problems, v.ok);
  return content !== null && !content.sound ? EXIT_STATUS.DRUM_CORRUPT_FILE : 0;
}

export async function repairCommand(rawIn: RawOptions, io: CliIo): Promise<number> {
  const raw = rawIn as Omit<RawOptions, 'bloom'> & { bloom?: boolean; catalog?: boolean; urlIndex?: boolean };
  const state = stateDirFrom(rawIn, io.env, io.cwd);
  if (!raw.bloom && !raw.catalog && !raw.urlIndex) throw new DrumError('DRUM_BAD_OPTION', 'drum repair: say what to rebuild: --bloom, --url-index and/or --catalog');
  const bits = raw.bloomBits === undefined ? undefined : parseCount('--bloom-bits', raw.bloomBits, 1, 64);
  const { repair } = await loadEngine();
  const r = await repair(state, { bloom: raw.bloom === true, catalog: raw.catalog === true, urlIndex: raw.urlIndex === true, bloomBitsPerKey: bits });
  if (raw.json) json(io, r);
  else {
    if (r.urlIndex) io.stdout.write(`URL log index rebuilt from its segments: ${fmtCount(r.urlIndex.blocks, 'block')}, ${fmtCount(r.urlIndex.docs, 'docID')}\n`);
    if (r.bloom) io.stdout.write(`bloom filter rebuilt from the store: ${r.bloom.file}, ${fmtCount(r.bloom.keys, 'key')}, ${r.bloom.bitsPerKey} bits/key\n`);
    if (r.catalog) io.stdout.write(catalogRepairLine(r.catalog));
  }
  return 0;
}

/** What `repair --catalog` did, in one line. */
function catalogRepairLine(c: NonNullable<RepairOutcome['catalog']>): string {
  if (!c.rebuilt) return 'run catalog is sound (read whole, as drum verify reads it): nothing rebuilt, nothing changed\n';
  const unknown = c.countsUnknown === 0 ? '' : ` (${fmtCount(c.countsUnknown, 'run')} without duplicate and rejected counts: their report.json is gone)`;
  const salvage = c.salvageError === null ? '' : ` (nothing salvaged from the old catalog: ${c.salvageError})`;
  return `run catalog rebuilt: old one kept at ${c.movedTo}; ${fmtCount(c.runs, 'run')} recorded: ${fmtCount(c.salvaged, 'record')} salvaged from the old catalog as the runs wrote them${salvage}, ` +
    `${fmtCount(c.runs - c.salvaged, 'record')} rebuilt from the manifest${unknown}; host counts of ${fmtCount(c.hostRuns, 'run')} recounted from their unique files\n`;
}

export async function upgradeCommand(raw: RawOptions, io: CliIo): Promise<number> {
  const state = stateDirFrom(raw, io.env, io.cwd);
  const { upgradeStore } = await loadEngine();
  const had = manifestOrNull(state)?.bloom != null;
  // Only what upgrade takes: --bloom and --bloom-bits (the journal's fold, if any), --no-fsync.
  const { bloom, bloomBitsPerKey, fsync } = drumOptionsFrom(raw, { cwd: io.cwd });
  const r = await upgradeStore(state, { ...(fsync === false ? { fsync } : {}), ...(bloom ? { bloom } : {}), ...(bloomBitsPerKey ? { bloomBitsPerKey } : {}) });
  if (raw.json) json(io, r);
  else if (r.upgraded) io.stdout.write(`upgraded to a store with values: ${fmtCount(r.urls, 'URL')} got docIDs 0..${fmtInt(Math.max(0, r.docIDs - 1))} in key order (first run and last emission unknown)\n${bloomDroppedNote(had, state)}`);
  else io.stdout.write(`already a store with values: ${fmtCount(r.urls, 'URL')}, ${fmtCount(r.docIDs, 'docID')} handed out\n`);
  return 0;
}

/** The committed manifest, or null when there is none or it cannot be read (verify reports that). */
function manifestOrNull(state: string): ManifestBody | null {
  try {
    return readManifest(state);
  } catch {
    return null;
  }
}

async function withCatalog<T>(raw: RawOptions, io: CliIo, fn: (c: Catalog) => Promise<T>): Promise<T> {
  const c = await Catalog.open(stateDirFrom(raw, io.env, io.cwd), { readOnly: true });
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}

export async function runsCommand(raw: RawOptions, io: CliIo): Promise<number> {
  const limit = limitFrom(raw);
  const state = stateDirFrom(raw, io.env, io.cwd);
  // A live writer means the manifest's unfinished run is running, not interrupted (where the kernel's lock table
  // cannot be read, it is taken as running). Asked before and after the manifest is read: a writer that ends between counts.
  const runs = await withCatalog(raw, io, async (c) => {
    const records = await c.listRuns(limit);
    const before = writerLockHeld(state) !== false;
    const manifest = manifestOrNull(state);
    return settleRuns(records, manifest, before || writerLockHeld(state) !== false, limit);
  });
  if (raw.json) json(io, runs);
  else io.stdout.write(formatRuns(runs));
  return 0;
}

export async function hostsCommand(raw: RawOptions, io: CliIo): Promise<number> {
  const top = topFrom(raw);
  const hosts = await withCatalog(raw, io, (c) => c.topHosts(top));
  if (raw.json) json(io, hosts);
  else io.stdout.write(formatHosts(hosts));
  return 0;
}
