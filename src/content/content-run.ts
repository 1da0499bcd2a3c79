// One `drum content` run: reads every WARC input's documents in record
// order, fingerprints them into batches of typed arrays, merges each batch
// with the content store (one committed round per batch), and writes the
// outputs: content-duplicates.tsv (url, exact|near, the URL of the earliest
// copy, and 0 for exact, the estimated Jaccard similarity (MinHash) or the
// Hamming distance (SimHash) for near; in record order) and content-report.json (documents,
// duplicates, clusters and their size histogram, digest checks, skipped
// records, time, peak RSS, IO). A document seen in an earlier run is a
// duplicate now: the store maps every exact and band key to its earliest
// docID.
// Does not parse options (src/cli/commands/content-command.ts) or suggest rules
// (rule-suggest.ts, fed through onExact).
// REQUIRES: inputs are WARC (.warc, .warc.gz, or such on stdin).

import { join } from 'node:path';
import { inputSize, type ByteStream } from '../input/open.js';
import { isDrumError } from '../errors.js';
import { DrumFs, type FaultHook } from '../io/fs.js';
import { replaceFile } from '../io/replace-file.js';
import { ContentBatch } from './batch.js';
import { ContentStore } from './content-store.js';
import { checkContentOutDir, refuseContentInputs } from './content-out.js';
import type { ContentAsked, NearMethod } from './content-manifest.js';
import { MINHASH_K } from './near/minhash.js';
import { DocFeaturer, FP_WORDS } from './document/features.js';
import { type DocCounts, newDocCounts, readDocs } from './document/read-docs.js';

export const DUPLICATES_FILE = 'content-duplicates.tsv';
export const REPORT_FILE = 'content-report.json';

export interface ContentRunOptions {
  stateDir: string;
  outDir: string;
  inputs: readonly string[];
  /** What `-` reads. Default the process's stdin (a directory there is refused). */
  stdin?: ByteStream;
  /** Near method of a new store (an existing store keeps its own; default minhash). */
  near?: NearMethod;
  /** SimHash threshold of a new SimHash store (0..3). */
  threshold: number;
  /** MinHash: estimated Jaccard similarity a near copy needs (default 0.5). */
  minJaccard?: number;
  /** The near parameters the caller set: an existing store made otherwise is DRUM_POLICY_MISMATCH (ContentStoreOptions.asked). */
  asked?: ContentAsked;
  /** Documents per round (RAM: ~40 bytes each plus their URLs). */
  roundDocs: number;
  fsync: boolean;
  /** Each exact duplicate as it is found: (its URL, the earliest copy's URL). */
  onExact?: (url: string, rep: string) => void;
  /** Each document with its exact key (hex), in record order. */
  onDoc?: (url: string, key: string) => void;
  /** A one-time note about the store (its conversion from an earlier layout). */
  onNotice?: (message: string) => void;
  /** The fault seam (src/io/fs.ts) of every file the run writes, the store's and the outputs': tests only, as DrumOptions.faultHook is the URL store's. */
  faultHook?: FaultHook | null;
}

export interface ContentReport {
  documents: number;
  exactDuplicates: number;
  nearDuplicates: number;
  /** Earliest documents that gained at least one duplicate this run. */
  clusters: number;
  /** Cluster size (the earliest document plus its duplicates of this run) -> clusters of that size. */
  clusterSizes: Record<string, number>;
  storeDocuments: number;
  /** The store's near method. */
  near: NearMethod;
  /** SimHash stores: the Hamming threshold. */
  threshold?: number;
  /** MinHash stores: the estimated Jaccard similarity a near copy needed, and the candidate pairs the band map gave. */
  minJaccard?: number;
  candidatePairs?: number;
  rounds: number;
  records: number;
  malformedRecords: number;
  skipped: DocCounts['skipped'];
  payloadDigest: { match: number; mismatch: number; absent: number; unchecked: number };
  inputBytes: number;
  timeMs: number;
  docsPerSecond: number;
  peakRssBytes: number;
  io: { bytesRead: number; bytesWritten: number; fsyncs: number };
  outDir: string;
  /** Inputs that broke part-way (a truncated gzip): every whole record before the break was taken; the CLI exits with their status. */
  inputErrors: { path: string; code: string; message: string }[];
}

/** What a run's rounds share: the store, the batch being filled and its URLs, the duplicates file, and the totals so far. */
interface ContentRound {
  store: ContentStore;
  minhash: boolean;
  batch: ContentBatch;
  /** URL of each document in the batch. */
  urls: string[];
  /** content-duplicates.tsv, open for writing through a DrumFs of its own (its IO is not the store's, which the report counts). */
  out: { fs: DrumFs; fd: number };
  r: { documents: number; exact: number; near: number; rounds: number };
  /** Earliest docID -> its cluster's size (itself plus its duplicates of this run). */
  clusters: Map<number, number>;
  onExact: ContentRunOptions['onExact'];
}

/** One `drum content` run over o.inputs: a committed round per full batch, then the duplicates file and the report. */
export async function runContent(o: ContentRunOptions): Promise<ContentReport> {
  const t0 = performance.now();
  // A missing input fails before the store is touched, as ingest's does.
  for (const p of o.inputs) await inputSize(p, { stdin: o.stdin });
  refuseContentInputs(o.stateDir, o.inputs);
  // So does an --out it must not write into (the store's own directory, a stranger's files).
  checkContentOutDir(o.stateDir, o.outDir);
  const dfs = new DrumFs(undefined, o.faultHook ?? null);
  const minJaccard = o.minJaccard ?? 0.5;
  const store = await ContentStore.open(o.stateDir, { fsync: o.fsync, near: o.near, threshold: o.threshold, minJaccard, asked: o.asked, dfs, onNotice: o.onNotice });
  const minhash = store.near === 'minhash';
  try {
    // Its OS errors (a full disk) are DRUM_IO naming the file, as the store's are.
    const outFs = new DrumFs(undefined, o.faultHook ?? null);
    outFs.mkdirp(o.outDir, o.fsync);
    const out = { fs: outFs, fd: outFs.open(join(o.outDir, DUPLICATES_FILE), 'w') };
    const counts = newDocCounts();
    const r = { documents: 0, exact: 0, near: 0, rounds: 0 };
    const clusters = new Map<number, number>();
    const batch = new ContentBatch(o.roundDocs, minhash);
    batch.reset(store.docs);
    const urls: string[] = [];
    const run: ContentRound = { store, minhash, batch, urls, out, r, clusters, onExact: o.onExact };
    const fp = new Uint32Array(FP_WORDS);
    const featurer = new DocFeaturer();
    const inputErrors: ContentReport['inputErrors'] = [];
    try {
      for (const input of o.inputs) {
        try {
          for await (const d of readDocs(input, counts, o.stdin)) {
            const usable = minhash ? featurer.fingerprint(d, fp, 0, batch.sigs, batch.sigAt(batch.n)) : featurer.fingerprint(d, fp, 0);
            batch.add(fp, 0, usable);
            urls.push(d.url);
            o.onDoc?.(d.url, d.digest.toString('hex', 0, 8));
            r.documents++;
            if (batch.full) await mergeRound(run);
          }
        } catch (e) {
          // An input that breaks part-way keeps its whole records before the break, as ingest keeps its lines.
          if (!isDrumError(e, 'DRUM_INPUT')) throw e;
          inputErrors.push({ path: input, code: e.code, message: e.message });
        }
      }
      await mergeRound(run);
      if (o.fsync) {
        outFs.fsync(out.fd);
        outFs.fsyncDir(o.outDir); // the file's name
      }
    } catch (e) {
      try {
        outFs.close(out.fd);
      } catch {
        // the error that stopped the run is the one to report
      }
      throw e;
    }
    outFs.close(out.fd);
    store.endRun();
    const report = { ...contentReport(run, counts, dfs, { t0, minJaccard, outDir: o.outDir }), inputErrors };
    const body = Buffer.from(JSON.stringify(report, null, 2) + '\n');
    replaceFile(dfs, join(o.outDir, REPORT_FILE), (fd) => dfs.write(fd, body, 0, body.length, 0), { fsync: o.fsync, ...(o.fsync ? { fsyncDir: o.outDir } : {}) });
    return report;
  } finally {
    await store.close();
  }
}

/** Merges the batch into the store as one round, appends its duplicates to the duplicates file in record order, and empties the batch. */
async function mergeRound(run: ContentRound): Promise<void> {
  const { store, batch, urls, r, clusters, minhash } = run;
  if (batch.n === 0) return;
  await store.round(batch, urls);
  r.rounds++;
  const lines: string[] = [];
  const urlOf = (doc: number): string => (doc >= batch.first ? urls[doc - batch.first]! : store.log.url(doc));
  for (let i = 0; i < batch.n; i++) {
    const ex = batch.exactOf[i]!;
    const near = batch.nearOf[i]!;
    const rep = ex >= 0 ? ex : near;
    if (rep < 0) continue;
    const repUrl = urlOf(rep);
    if (ex >= 0) {
      r.exact++;
      lines.push(`${urls[i]}\texact\t${repUrl}\t0`);
      run.onExact?.(urls[i]!, repUrl);
    } else {
      r.near++;
      const d = batch.nearDist[i]!;
      lines.push(`${urls[i]}\tnear\t${repUrl}\t${minhash ? (d / MINHASH_K).toFixed(2) : d}`);
    }
    clusters.set(rep, (clusters.get(rep) ?? 1) + 1);
  }
  if (lines.length > 0) {
    const b = Buffer.from(lines.join('\n') + '\n');
    run.out.fs.write(run.out.fd, b, 0, b.length, null);
  }
  batch.reset(store.docs);
  urls.length = 0;
}

/** The run's report: its totals, the store's size and method, the documents' counts and the IO done; time runs from `t0` to now. */
function contentReport(run: ContentRound, counts: DocCounts, dfs: DrumFs, at: { t0: number; minJaccard: number; outDir: string }): Omit<ContentReport, 'inputErrors'> {
  const { store, r, clusters, minhash } = run;
  const sizes: Record<string, number> = {};
  for (const s of clusters.values()) sizes[s] = (sizes[s] ?? 0) + 1;
  const timeMs = performance.now() - at.t0;
  return {
    documents: r.documents, exactDuplicates: r.exact, nearDuplicates: r.near, clusters: clusters.size, clusterSizes: sizes,
    storeDocuments: store.docs, near: store.near,
    ...(minhash ? { minJaccard: at.minJaccard, candidatePairs: store.candidatePairs } : { threshold: store.threshold }), rounds: r.rounds,
    records: counts.records, malformedRecords: counts.malformed, skipped: counts.skipped,
    payloadDigest: { match: counts.digestMatch, mismatch: counts.digestMismatch, absent: counts.digestAbsent, unchecked: counts.digestUnchecked },
    inputBytes: counts.bytes, timeMs: Math.round(timeMs), docsPerSecond: Math.round(r.documents / Math.max(timeMs / 1000, 1e-3)),
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    io: { bytesRead: dfs.counters.bytesRead, bytesWritten: dfs.counters.bytesWritten, fsyncs: dfs.counters.fsyncs },
    outDir: at.outDir,
  };
}
