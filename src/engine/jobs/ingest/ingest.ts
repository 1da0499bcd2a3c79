// The ingest job: reads the inputs from the committed position, parses them
// on the worker pool, routes keys through the tiers into the buckets, and
// runs a merge round whenever the round is full (or --merge-every says so) and at the end.
// Each round commits store files, the unique-URL and rejects bytes written so
// far and the input position with one manifest rename, so a killed run
// resumes where it committed and writes byte-identical outputs.
// Stages, one function each: plan (planIngest), refuse a bad store
// (refuseBadStore), start the run (startRun), read and route
// (readInputs/routeChunk), merge and commit a round (commitRound/closeRound),
// finish. The outputs live in run-outputs.ts, the gauges in run-meter.ts,
// the history records in run-history.ts, the link graph (--graph) in graph-run.ts.
// REQUIRES: a Session opened for writing; one job at a time on it.

import { join } from 'node:path';
import { DrumError, isDrumError } from '../../../errors.js';
import { readBloom } from '../../../tiers/bloom-file.js';
import type { Reject } from '../../../input/types.js';
import { flattenCounters, newRunCounters, restoreCounters, type RunCounters } from '../../../stats/counters.js';
import type { InputRecord, ManifestBody, RunState, RunSummary } from '../../../store/manifest.js';
import type { AbandonedRun, CommittedRound, IngestRequest, RunReport } from '../../api.js';
import type { ParsedChunk } from '../../pipeline/parse.js';
import { mergeAndCommit, mergeDue } from '../../url-seen/commit.js';
import { foldJournal } from '../../url-seen/journal-round.js';
import { buildReport, writeReport, type StoreAfter } from './report-build.js';
import { callerStreams, damagedInputs, describeInputs, planRun, readKeyOf, type RunPlan } from './run-setup.js';
import { knownInputs, withWholeHash } from './known-inputs.js';
import type { Session } from '../../session/session.js';
import { readLoop, type InputError } from '../../pipeline/read-loop.js';
import { recoverHostCounts } from '../../hosts/host-recovery.js';
import { probeOutDir, RunOutputs } from './run-outputs.js';
import { RunMeter } from './run-meter.js';
import { catalogRecord, pushHistory } from './run-history.js';
import { abandonedRecord, committedUrls, runningRecord, settleAbandoned } from './run-records.js';
import { GraphRun } from './graph-run.js';
import { holdGraphStreams } from './graph-inputs.js';
import type { ByteStream } from '../../../input/open.js';

export async function ingest(s: Session, req: IngestRequest): Promise<RunReport> {
  const t0 = performance.now();
  s.timer.startRun();
  // A crash between a commit and its host counts left the last round uncounted: count it now.
  await recoverHostCounts(s.store.body.run, s.catalog, { dfs: s.dfs, path: join(s.workDir, 'hosts-recovery.parts') });
  const plan = await planIngest(s, req);
  if (!plan.resume && plan.skipped.every((x) => x)) {
    // Nothing to write; an --out the run could not make is refused all the same, as with work to do.
    if (req.outDir !== undefined) probeOutDir(plan.run.outDir);
    return buildReport(s, plan.run, newRunCounters(), plan.skipped, [], 0, 'skipped');
  }
  // Input for more than one chunk keeps a worker busy: start it now, so it loads while the store is checked and the run starts.
  if (plan.run.inputs.some((x, i) => !plan.skipped[i] && (x.path === '-' || x.bytes > s.opts.chunkBytes))) s.pool.warm();
  await refuseBadStore(s);
  // A --graph run's stream inputs are read ahead last: one that is not TSV is refused before the run starts.
  const held = req.graph === true ? await holdGraphStreams(req, s.policy.maxLineBytes) : null;
  try {
    return await runIngest(s, req, plan, t0, held?.streams ?? callerStreams(req, plan.run.inputs));
  } finally {
    await held?.close();
  }
}

/** Describes the inputs and plans the run; an input a complete run took whole (manifest history or catalog) is skipped unless forced. */
async function planIngest(s: Session, req: IngestRequest): Promise<RunPlan> {
  if (req.revisitAfter !== undefined && (!Number.isSafeInteger(req.revisitAfter) || req.revisitAfter < 0)) {
    throw new DrumError('DRUM_BAD_OPTION', `revisitAfter must be whole seconds >= 0, got ${String(req.revisitAfter)}`);
  }
  const read = readKeyOf(req, s.policy);
  const inputs: InputRecord[] = (await describeInputs(req.inputs, s.opts.tuning.fullHashMaxBytes)).map((i) => ({ ...i, read }));
  const known = req.force ? inputs.map(() => false) : await knownInputs(s.store.body, s.catalog, inputs);
  if (req.revisitAfter !== undefined) {
    if (!s.valued) throw new DrumError('DRUM_NEEDS_UPGRADE', 'revisitAfter (--revisit-after) needs the time each URL was last emitted, which this store (keys only) lacks; run drum upgrade first');
    // Lossy mode answers "maybe seen" URLs without the store: a due one would never be found.
    if (s.opts.bloom === 'lossy') throw new DrumError('DRUM_BAD_OPTION', "revisitAfter (--revisit-after) cannot be combined with bloom 'lossy' (--bloom lossy)");
  }
  if (req.graph === true) await GraphRun.refuse(s, req);
  return planRun(s.dir, s.store.body, req, inputs, (i) => known[inputs.indexOf(i)] ?? false, s.opts.tuning.urlsPerFile, s.opts.now());
}

/** Refuses a store that fails verification before anything is written. */
export async function refuseBadStore(s: Session): Promise<void> {
  const v = s.verifyBeforeWrite();
  if (!v.ok) {
    const p = v.problems[0]!;
    const what = p.message.includes(p.file) ? p.message : `${p.file}: ${p.message}`;
    throw new DrumError(p.code as 'DRUM_CORRUPT_FILE', `store failed verification, nothing was changed: ${what}`, { file: p.file });
  }
  // A Bloom file the manifest names was checked at open only if this run uses it; check it anyway.
  const bf = s.store.body.bloom;
  if (bf !== null && s.front.bloom === null) {
    try {
      await readBloom(s.dfs, join(s.dir, bf.file));
    } catch (e) {
      const file = join(s.dir, bf.file);
      if (isDrumError(e, 'DRUM_CORRUPT_FILE')) throw new DrumError('DRUM_CORRUPT_FILE', `store failed verification, nothing was changed: ${e.message}`, { file, cause: e });
      throw e;
    }
  }
}

/** One ingest run as it goes: what the stages share. */
interface IngestRun {
  readonly s: Session;
  readonly req: IngestRequest;
  readonly plan: RunPlan;
  readonly run: RunState;
  /** The run's counters: restored from the last commit, plus this process's. */
  readonly c: RunCounters;
  /** Counters restored from the last commit (IO and tier counters add this process's share to them). */
  readonly base: RunCounters;
  readonly meter: RunMeter;
  readonly out: RunOutputs;
  readonly history: RunSummary[];
  /** Input position after the last routed chunk. */
  position: RunState['position'];
  /** Where the unique files stood at the last commit (the round's first URL). */
  roundFrom: { file: number; bytes: number };
  inputErrors: InputError[];
  report: RunReport | null;
  /** The last committed round, for req.onCommit. */
  lastRound: CommittedRound | null;
  /** --graph: the link graph's round, else null. */
  readonly graph: GraphRun | null;
  /** Stream inputs read from a stream already open (held by --graph, or the caller's), by path. */
  readonly streams: Streams;
}

type Streams = ReadonlyMap<string, ByteStream> | undefined;

/** `streams`: what the run reads its stream inputs from, by path (held ones, or the caller's), else they are opened. */
async function runIngest(s: Session, req: IngestRequest, plan: RunPlan, t0: number, streams: Streams): Promise<RunReport> {
  const r = await startRun(s, req, plan, t0, streams);
  try {
    r.inputErrors = await readInputs(r);
    await commitRound(r, true);
  } catch (e) {
    await r.out.abandon();
    throw e;
  }
  await r.out.close();
  // Every parsed chunk was routed and committed: the tiers and memos now vouch only for stored URLs.
  await s.saveCaches();
  r.meter.progress('done', r.c);
  if (s.catalog !== null) await s.catalog.putRun(catalogRecord(r.run, r.report!));
  // The final round is announced once the catalog records the run complete.
  if (req.onCommit && r.lastRound !== null) await req.onCommit(r.lastRound);
  return r.report!;
}

/**
 * Records a new run in the manifest before its first output byte (a crash
 * from then on resumes it) and in the catalog, settles the unfinished run it
 * abandons, and opens its outputs.
 */
async function startRun(s: Session, req: IngestRequest, plan: RunPlan, t0: number, streams: Streams): Promise<IngestRun> {
  const run = plan.run;
  const c: RunCounters = plan.resume ? restoreCounters(run.counters) : newRunCounters();
  const bytesTotal = run.inputs.some((i) => i.path === '-' || i.sha256 === '') ? null : run.inputs.reduce((a, i) => a + i.bytes, 0);
  // Taken before the run's first commit: its manifest write is this run's IO too.
  const meter = new RunMeter(s.dfs, s.front, t0, bytesTotal, req.onProgress);
  let history = s.store.body.history;
  let abandoned: AbandonedRun | null = null;
  // Made before anything is recorded or said: an --out the OS refuses (a path under /proc) fails the command, not a started run.
  if (!plan.resume) s.dfs.mkdirp(run.outDir, s.opts.fsync);
  if (plan.abandoned !== null) {
    // Its outputs are cut to its last commit first: a crash from here on leaves it resumable as it was.
    abandoned = settleAbandoned(s.dfs, plan.abandoned);
    history = pushHistory(history, plan.abandoned, restoreCounters(plan.abandoned.counters));
  }
  // Said before the commit that abandons the old run: a crash right after it must not leave that unsaid.
  req.onRunStart?.({ runId: run.runId, outDir: run.outDir, resumed: plan.resume, committedUrls: plan.resume ? committedUrls(run) : 0, abandoned });
  if (!plan.resume) {
    run.counters = flattenCounters(c);
    run.seq = (s.store.body.runSeq ?? 0) + 1; // the firstRun of the URLs it stores
    s.store.commit({ ...s.store.body, run: { ...run }, history, runSeq: run.seq });
  }
  if (s.catalog !== null) {
    if (plan.abandoned !== null) await s.catalog.putRun(abandonedRecord(plan.abandoned));
    await s.catalog.putRun(runningRecord(run));
  }
  const out = new RunOutputs(s.dfs, run, plan.resume, s.workDir, s.opts.fsync);
  // A revisit run starts with cold tiers: a tier hit is then a URL this run already sent to the store (where it was judged), never one
  // vouched for by an earlier run, whose due URLs would go unseen.
  if (run.revisit !== undefined) s.clearTiers();
  // A revisit judges every stored URL by its value in the bucket files: the journal's keys are folded in first.
  if (run.revisit !== undefined) await foldJournal(s, c);
  s.front.startRound();
  const base = plan.resume ? restoreCounters(run.counters) : newRunCounters();
  return {
    s, req, plan, run, c, base, meter, out, history, position: { ...run.position },
    roundFrom: { file: run.unique.file, bytes: run.unique.bytes }, inputErrors: [], report: null, lastRound: null,
    graph: run.graph === undefined ? null : new GraphRun(s), streams,
  };
}

/** Reads every input from the committed position, routing each parsed chunk and committing rounds as they fill. */
function readInputs(r: IngestRun): Promise<InputError[]> {
  const { s, c, meter } = r;
  const tooLong: Reject[] = [];
  return readLoop(s, {
    inputs: r.run.inputs, from: { ...r.position }, skip: r.plan.skipped, read: r.req, streams: r.streams, ...r.graph?.readHooks(),
    onBytes: (d) => {
      meter.bytesRead += d;
      c.inputBytes += d;
    },
    onChunk: async (p) => {
      routeChunk(r, p, tooLong);
      if (mergeDue(s) || r.graph?.full === true) await commitRound(r, false);
      meter.progress('reading', c);
    },
    onInputError: (e: InputError) => {
      // Committed with the next round: a damaged input is never recorded as ingested.
      r.run.inputs[e.input] = { ...r.run.inputs[e.input]!, damaged: { offset: e.offset, line: e.line, code: e.code, message: e.message } };
    },
    // Every file is hashed as it is read: recorded with the hash of the bytes read, a later run can skip it.
    hashInput: (i) => r.run.inputs[i]!.sha256 !== '',
    onInputDone: async (i, whole) => {
      const { record, changed } = await withWholeHash(r.run.inputs[i]!, whole);
      if (changed) s.opts.onNotice(changedNotice(r.run.inputs[i]!, record));
      r.run.inputs[i] = record;
      r.position.input = i + 1;
      r.position.offset = 0;
      r.position.line = 0;
    },
  });
}

/** What an operator is told of an input that changed while this run read it. */
function changedNotice(before: InputRecord, after: InputRecord): string {
  const what = after.sampled ? `its size changed while it was read (${before.bytes} bytes before); it is not recorded as ingested, so a later run reads it again` :
    'its bytes changed while it was read; it is recorded with the SHA-256 of the bytes this run read';
  return `${before.path}: ${what}`;
}

/** Counts a chunk's rejects and routes its URLs into the tiers and buckets; advances the input position past it. */
function routeChunk(r: IngestRun, p: ParsedChunk, tooLong: Reject[]): void {
  const { s, c, out } = r;
  if (p.rejects.length > 0) out.countRejects(c, p.rejects);
  if (r.graph !== null) r.graph.route(p, c, tooLong);
  else s.front.route(p, s.core, c, tooLong);
  if (tooLong.length > 0) {
    out.countRejects(c, tooLong);
    tooLong.length = 0;
  }
  r.position.input = p.input;
  r.position.offset = p.endOffset;
  r.position.line = p.endLine;
}

/** Merges everything pending, commits it with the run's outputs, then applies the round's host counts. */
async function commitRound(r: IngestRun, final: boolean): Promise<void> {
  const { s, c, out, run } = r;
  r.meter.progress('merging', c);
  await mergeAndCommit(s, {
    counters: c, emit: out.emit, sink: out.sink, beforeCommit: (storeUrls, journalKeys) => closeRound(r, final, { storeUrls, journalKeys }), journal: r.graph === null,
    revisit: run.revisit === undefined || out.revisit === null ? undefined : { rule: run.revisit, emit: (buf, start, end) => out.revisit!.write(buf, start, end) },
    ...r.graph?.commitHooks(out),
  });
  const committed = s.store.body.run!.unique;
  const to = { file: committed.file, bytes: committed.bytes };
  r.lastRound = { runId: run.runId, outDir: run.outDir, from: r.roundFrom, to, committedUrls: c.uniqueUrls, final };
  r.roundFrom = to;
  await out.applyHostCounts(s.catalog, run.runId, run.rounds);
  // The final round is announced after the catalog's record (runIngest).
  if (!final && r.req.onCommit) await r.req.onCommit(r.lastRound);
}

/** Before a round's manifest rename: makes the outputs durable (and writes report.json at the end); returns the run state to commit. */
async function closeRound(r: IngestRun, final: boolean, after: StoreAfter): Promise<Pick<ManifestBody, 'run' | 'history'>> {
  const { s, c, out, run } = r;
  r.meter.progress('committing', c);
  r.graph?.finishRound(s.core.records, c, out);
  const point = await out.sync();
  r.meter.syncIo(c, r.base);
  if (final) {
    // report.json is the last output; it commits with the final round (a crash before the rename redoes it).
    r.report = buildReport(s, { ...run, status: 'complete', ...(out.graphAt !== null ? { graph: out.graphAt } : {}) }, c, r.plan.skipped, out.unique.fileNames(), c.elapsedMs, 'complete', damagedInputs(run), after);
    writeReport(s.dfs, run.outDir, r.report);
  }
  const nextRun: RunState = {
    ...run, position: { ...r.position }, rounds: run.rounds + 1, unique: point, lastRoundFrom: { ...r.roundFrom },
    rejectsBytes: out.rejects.committedLength(), counters: flattenCounters(c),
    ...(run.revisit !== undefined && out.revisitAt !== null ? { revisit: { ...run.revisit, ...out.revisitAt } } : {}),
    ...(run.graph !== undefined && out.graphAt !== null ? { graph: out.graphAt } : {}),
    status: final ? 'complete' : 'running', finishedAt: final ? new Date().toISOString() : null,
  };
  run.rounds = nextRun.rounds;
  return { run: nextRun, history: final ? pushHistory(r.history, nextRun, c) : r.history };
}
