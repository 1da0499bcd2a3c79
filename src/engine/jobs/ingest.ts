// The ingest job: reads the inputs from the committed position, parses them
// on the worker pool, routes keys through the tiers into the buckets, and
// runs a merge round whenever the round is full (or --merge-every says so) and at the end.
// Each round commits store files, the unique-URL and rejects bytes written so
// far and the input position with one manifest rename, so a killed run
// resumes where it committed and writes byte-identical outputs.

import { join } from 'node:path';
import { DrumError, isDrumError } from '../../errors.js';
import { readBloom } from '../../tiers/bloom-file.js';
import type { Reject } from '../../input/types.js';
import { RejectsWriter } from '../../output/rejects.js';
import { UniqueWriter } from '../../output/unique-writer.js';
import { flattenCounters, newRunCounters, restoreCounters, type RunCounters } from '../../stats/counters.js';
import type { RunState, RunSummary } from '../../store/manifest.js';
import type { IngestRequest, RunReport } from '../api.js';
import type { ParsedChunk } from '../pipeline/parse.js';
import { mergeAndCommit, mergeDue } from '../core/commit.js';
import { buildReport, writeReport } from './report-build.js';
import { describeInputs, inHistory, planRun, type RunPlan } from './run-setup.js';
import type { Session } from '../core/session.js';
import { HostCounter } from '../hosts/host-counter.js';
import { readLoop, type InputError } from '../pipeline/read-loop.js';
import { recoverHostCounts } from '../hosts/host-recovery.js';

const HISTORY_KEEP = 20;

export async function ingest(s: Session, req: IngestRequest): Promise<RunReport> {
  const t0 = performance.now();
  // A crash between a commit and its host counts left the last round uncounted: count it now.
  await recoverHostCounts(s.store.body.run, s.catalog, { dfs: s.dfs, path: join(s.workDir, 'hosts-recovery.parts') });
  const inputs = await describeInputs(req.inputs);
  const catalogHas = new Set<string>();
  if (s.catalog !== null && !req.force) {
    for (const i of inputs) {
      if (i.path !== '-' && (await s.catalog.findIngestedInput(i.sha256, i.bytes))) catalogHas.add(`${i.sha256}/${i.bytes}`);
    }
  }
  const plan = planRun(s.dir, s.store.body, req, inputs, (i) => inHistory(s.store.body, i) || catalogHas.has(`${i.sha256}/${i.bytes}`), s.opts.tuning.urlsPerFile);
  if (!plan.resume && plan.skipped.every((x) => x)) {
    return buildReport(s, plan.run, newRunCounters(), plan.skipped, [], 0, 'skipped');
  }
  // Refuse a store that fails verification before writing anything.
  const v = s.verifyStore();
  if (!v.ok) {
    const p = v.problems[0]!;
    throw new DrumError(p.code as 'DRUM_CORRUPT_FILE', `store failed verification, nothing was changed: ${p.file}: ${p.message}`, { file: p.file });
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
  return runIngest(s, req, plan, t0);
}

async function runIngest(s: Session, req: IngestRequest, plan: RunPlan, t0: number): Promise<RunReport> {
  const run = plan.run;
  const c: RunCounters = plan.resume ? restoreCounters(run.counters) : newRunCounters();
  const io0 = { ...s.dfs.counters };
  const tiers0 = { cl: s.front.cache.lookups, ch: s.front.cache.hits, rl: s.front.recent.lookups, rh: s.front.recent.hits };
  let history = s.store.body.history;
  if (plan.abandoned !== null) history = pushHistory(history, plan.abandoned, restoreCounters(plan.abandoned.counters));
  if (!plan.resume) {
    // Record the run before its first output byte: a crash from here on resumes this run.
    run.counters = flattenCounters(c);
    s.store.commit({ ...s.store.body, run: { ...run }, history });
  }
  s.dfs.mkdirp(run.outDir);
  const rejects = RejectsWriter.open(s.dfs, join(run.outDir, 'rejects.tsv'), { resumeLength: plan.resume ? run.rejectsBytes : 0, fsync: s.opts.fsync });
  const unique = new UniqueWriter(s.dfs, run.outDir, run.unique, s.opts.fsync);
  // Host counts of a round: sealed parts past a few MiB go to a work file, not RAM.
  const hosts = new HostCounter({ dfs: s.dfs, path: join(s.workDir, 'hosts.parts') });
  const position = { ...run.position };
  let bytesRead = 0;
  const bytesTotal = run.inputs.some((i) => i.path === '-') ? null : run.inputs.reduce((a, i) => a + i.bytes, 0);
  const progress = (phase: 'reading' | 'merging' | 'committing' | 'done'): void => {
    req.onProgress?.({ phase, bytesRead, bytesTotal, links: c.linksRead, elapsedMs: performance.now() - t0 });
  };
  s.front.startRound();

  // Counters restored from the last commit, plus what this process adds.
  const base = plan.resume ? restoreCounters(run.counters) : newRunCounters();
  const syncIo = (): void => {
    const d = s.dfs.counters;
    c.seeks = base.seeks + d.seeks - io0.seeks;
    c.fileOpens = base.fileOpens + d.fileOpens - io0.fileOpens;
    c.bytesRead = base.bytesRead + d.bytesRead - io0.bytesRead;
    c.bytesWritten = base.bytesWritten + d.bytesWritten - io0.bytesWritten;
    c.cacheLookups = base.cacheLookups + s.front.cache.lookups - tiers0.cl;
    c.cacheHits = base.cacheHits + s.front.cache.hits - tiers0.ch;
    c.recentLookups = base.recentLookups + s.front.recent.lookups - tiers0.rl;
    c.recentHits = base.recentHits + s.front.recent.hits - tiers0.rh;
    c.elapsedMs = base.elapsedMs + (performance.now() - t0);
  };

  let roundFrom = { file: run.unique.file, bytes: run.unique.bytes };
  const commitRound = async (final: boolean): Promise<void> => {
    progress('merging');
    await mergeAndCommit(s, {
      counters: c,
      emit: (buf, start, end) => {
        unique.write(buf, start, end);
        hosts.add(buf, start, end);
      },
      sink: {
        urlsPerFile: unique.urlsPerFile,
        room: () => unique.room(),
        block: (b) => {
          unique.writeLines(b.bytes, b.len, b.n);
          const buf = Buffer.from(b.bytes.buffer, b.bytes.byteOffset, b.len);
          let start = 0;
          for (let i = 0; i < b.n; i++) {
            const end = b.ends[i]!;
            hosts.add(buf, start, end);
            start = end + 1;
          }
        },
      },
      beforeCommit: async (storeUrls) => {
        progress('committing');
        const point = unique.sync();
        await rejects.sync();
        syncIo();
        if (final) {
          // report.json is the last output; it commits with the final round (a crash before the rename redoes it).
          report = buildReport(s, { ...run, status: 'complete' }, c, plan.skipped, unique.fileNames(), c.elapsedMs, 'complete', inputErrors, storeUrls);
          writeReport(s.dfs, run.outDir, report);
        }
        const nextRun: RunState = {
          ...run, position: { ...position }, rounds: run.rounds + 1, unique: point, lastRoundFrom: { ...roundFrom },
          rejectsBytes: rejects.committedLength(), counters: flattenCounters(c),
          status: final ? 'complete' : 'running', finishedAt: final ? new Date().toISOString() : null,
        };
        run.rounds = nextRun.rounds;
        return { run: nextRun, history: final ? pushHistory(history, nextRun, c) : history };
      },
    });
    const committed = s.store.body.run!.unique;
    roundFrom = { file: committed.file, bytes: committed.bytes };
    const parts = hosts.take();
    try {
      if (s.catalog !== null) await s.catalog.applyHostCounts(run.runId, run.rounds, parts);
    } catch (e) {
      try {
        parts.close();
      } catch {
        // the apply's error is the one to report; work/ is emptied at the next open
      }
      throw e;
    }
    parts.close();
  };

  let inputErrors: InputError[] = [];
  let report: RunReport | null = null;
  const process1 = (p: ParsedChunk, tooLong: Reject[]): void => {
    if (p.rejects.length > 0) countRejects(c, p.rejects, rejects);
    s.front.route(p, s.pending, s.aux, c, tooLong);
    if (tooLong.length > 0) {
      countRejects(c, tooLong, rejects);
      tooLong.length = 0;
    }
    position.input = p.input;
    position.offset = p.endOffset;
    position.line = p.endLine;
  };

  try {
    const tooLong: Reject[] = [];
    inputErrors = await readLoop(s, {
      inputs: run.inputs, from: { ...position }, skip: plan.skipped, read: req,
      onBytes: (d) => {
        bytesRead += d;
        c.inputBytes += d;
      },
      onChunk: async (p) => {
        process1(p, tooLong);
        if (mergeDue(s)) await commitRound(false);
        progress('reading');
      },
      onInputDone: (i) => {
        position.input = i + 1;
        position.offset = 0;
        position.line = 0;
      },
    });
    await commitRound(true);
  } catch (e) {
    // Close what we can without masking the error that stopped the run.
    try {
      hosts.discard();
    } catch {
      // a transient work file; emptied at the next open
    }
    try {
      unique.close();
      await rejects.close();
    } catch {
      // the committed state is what matters; a rerun truncates both files to it
    }
    throw e;
  }
  unique.close();
  await rejects.close();
  // Every parsed chunk was routed and committed: the memos now vouch only for stored URLs.
  await s.saveMemos();
  progress('done');
  if (s.catalog !== null) await s.catalog.putRun(catalogRecord(run, report!));
  return report!;
}

function countRejects(c: RunCounters, rs: readonly Reject[], w: RejectsWriter): void {
  for (const r of rs) c.rejectsByReason[r.reason] = (c.rejectsByReason[r.reason] ?? 0) + 1;
  c.rejectedLines += rs.length;
  c.linksRead += rs.length;
  w.addAll(rs);
}

function pushHistory(h: RunSummary[], run: RunState, c: RunCounters): RunSummary[] {
  const entry: RunSummary = {
    runId: run.runId, status: run.status, startedAt: run.startedAt, finishedAt: run.finishedAt,
    linksRead: c.linksRead, uniqueUrls: c.uniqueUrls, outDir: run.outDir, inputs: run.inputs,
  };
  return [...h.filter((x) => x.runId !== run.runId), entry].slice(-HISTORY_KEEP);
}

function catalogRecord(run: RunState, r: RunReport) {
  return {
    runId: run.runId, startedAt: run.startedAt, finishedAt: new Date().toISOString(), status: 'complete' as const,
    inputs: r.inputs.map((i) => ({ path: i.path, bytes: i.bytes, sha256: i.sha256, skipped: i.skipped })),
    counts: { linksRead: r.linksRead, uniqueUrls: r.uniqueUrls, duplicateUrls: r.duplicateUrls, rejectedLines: r.rejectedLines },
    outDir: run.outDir, outputFiles: r.outputFiles, options: { ...run.options },
  };
}
