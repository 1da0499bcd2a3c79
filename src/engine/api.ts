// Types of the public engine API that the CLI, the stream API and tests use:
// what ingest/check take and return, progress events, stats and verify
// results. Types only; the engine implements them in src/engine/drum.ts.

import type { Transform } from 'node:stream';
import type { RejectReason } from '../input/types.js';
import type { RunReport } from '../stats/report.js';
import type { DiskUsage } from '../stats/disk-usage.js';
import type { ForgetCounts } from '../store/manifest.js';
import type { ByteStream } from '../input/open.js';

export type InputFormat = 'auto' | 'lines' | 'tsv' | 'warc';

export interface ReadOptions {
  /** How to read each input. 'auto' detects gzip, WARC and TSV (a tab in the first data line). Default 'auto'. */
  format?: InputFormat;
  /** WARC: which extracted links to keep: navigation only, or embeds too. Default 'nav'. */
  links?: 'nav' | 'all';
  /** WARC: take links from HTML responses, from crawler metadata records (Heritrix outlink:), or both. Default 'html'. */
  warcLinks?: 'html' | 'metadata' | 'both';
}

export interface Progress {
  phase: 'reading' | 'merging' | 'committing' | 'done';
  /** Bytes of input consumed so far (compressed bytes for .gz inputs). */
  bytesRead: number;
  /** Total input bytes when known (regular files), else null (stdin). */
  bytesTotal: number | null;
  links: number;
  elapsedMs: number;
}

export interface IngestRequest extends ReadOptions {
  /** Input paths; '-' is stdin. */
  inputs: string[];
  /** Output directory for unique-NNNNN.txt, rejects.tsv, report.json. Default <state>/runs/<run-id>/. */
  outDir?: string;
  /** Ingest inputs even if already fully ingested into this store. Default false. */
  force?: boolean;
  /**
   * Seconds: also emit, into revisit-NNNNN.txt, each stored URL of the input
   * last emitted at least this long before the run started (once per run, in
   * arrival order), and move its last emission to now. Needs a store with
   * values. Inputs are never skipped as already ingested then. Default: off.
   */
  revisitAfter?: number;
  /**
   * Also write the link graph: for each TSV row (source, target) whose URLs
   * are both accepted, the pair (docID of source, docID of target) as two
   * little-endian u64 in graph-NNNNN.bin, in input order. A source not yet
   * stored is stored then (a fetched page is seen) but never emitted as new.
   * Needs a store with values and TSV inputs; every input is read. The
   * report's `graph` names the files. Default false.
   */
  graph?: boolean;
  /**
   * Stream inputs (stdin `-`, a FIFO, `<(...)`) the caller opened already,
   * by input path: the run reads such an input from its stream, from its
   * first byte, instead of opening the path (a regular file's entry is not
   * used). With `graph` their first bytes are still read ahead and one that
   * is not TSV refused before the run starts. The drum CLI reads a --graph
   * run's streams ahead this way before it opens (or creates) the store.
   * A --graph run releases every stream it was given (a Readable is
   * destroyed) as it ends or refuses it; otherwise the caller closes a
   * stream the run did not read. Default: none.
   */
  streams?: ReadonlyMap<string, ByteStream>;
  onProgress?: (p: Progress) => void;
  /**
   * Called as the run starts, just before it is recorded (and before its
   * first output byte): its id and output directory, whether it resumes an
   * interrupted run, and the unfinished run it abandons, if any (where that
   * run's committed URLs are); a crash right after still left this said.
   */
  onRunStart?: (r: RunStart) => void;
  /**
   * Called after each committed round with where its new URLs are in the
   * unique files: bytes [from, to) in name order. The run waits for a returned
   * promise (backpressure), and a throw stops the run (its commits stay).
   */
  onCommit?: (c: CommittedRound) => void | Promise<void>;
}

/** An unfinished run that a new run replaced: its committed new URLs stay in its output directory. */
export interface AbandonedRun {
  runId: string;
  startedAt: string;
  outDir: string;
  /** New URLs it committed: the first ones of its unique files, which were cut to its last commit. */
  committedUrls: number;
  inputs: string[];
}

export interface RunStart {
  runId: string;
  outDir: string;
  resumed: boolean;
  /** New URLs committed before this process started (a resumed run), else 0. */
  committedUrls: number;
  abandoned: AbandonedRun | null;
}

/** A position in a run's unique files: file number (1 = unique-00001.txt) and byte offset in it. */
export interface UniqueAt {
  file: number;
  bytes: number;
}

export interface CommittedRound {
  runId: string;
  outDir: string;
  from: UniqueAt;
  to: UniqueAt;
  /** New URLs committed by this run so far, this round included. */
  committedUrls: number;
  final: boolean;
}

export interface CheckRequest extends ReadOptions {
  inputs: string[];
  /** Receives each URL not yet in the store, in input order (first occurrence only). */
  onNew: (url: string) => void;
}

/** What `Drum.forget` removes from the store (docs/library.md). */
export interface ForgetRequest extends ReadOptions {
  /** Files of URLs to forget, read as ingest reads them (URL lines, TSV rows' targets, .gz, WARC); '-' is stdin. */
  inputs?: string[];
  /** URLs to forget, given in memory (one URL per element; canonicalized with the store's policy). */
  urls?: Iterable<string>;
  /**
   * Forget every stored URL of these exact hosts (host[:port] as the canonical URL spells it).
   * Needs a store that keeps a host check per URL; DRUM_NEEDS_UPGRADE otherwise.
   */
  hosts?: string[];
  /** Where forgotten.txt and rejects.tsv go. Default <state>/runs/<run-id>/. */
  outDir?: string;
}

/** A line of a forget list that named no URL, by its place in the list. */
export interface ForgetReject {
  /** Index of the input in the request (the in-memory `urls` come after the files). */
  input: number;
  /** 1-based line number within that input (for `urls`: the element's index + 1). */
  line: number;
  reason: string;
}

/** What a forget did: the counts `drum runs` shows for it, and where its files are. */
export interface ForgetReport extends ForgetCounts {
  runId: string;
  outDir: string;
  /** The first FORGET_REJECTS_KEPT rejects, with their line numbers. */
  rejects: ForgetReject[];
  /** URLs in the store after the forget. */
  storeUrls: number;
  /** Inputs that ended in an error (every line before the damage was forgotten). */
  inputErrors: { path: string; code: string; message: string; line: number }[];
}

export interface StoreStats {
  stateDir: string;
  formatVersion: number;
  storeUrls: number;
  /** Bytes of the store files the manifest names: key and values files and the key journal (store/), and the Bloom file. */
  storeBytes: number;
  /** Of storeBytes, the values files' (0 in a keys-only store). */
  valuesBytes: number;
  /** How many files storeBytes counts. */
  files: number;
  buckets: number;
  hostBits: number;
  policy: string;
  /** Expected number of colliding key pairs among storeUrls (docs/design.md). */
  expectedCollisions: number;
  bloom: { bitsPerKey: number; sizeBytes: number; keys: number; expectedFpRate: number } | null;
  /** The key journal: URLs stored by small rounds and not yet folded into the key files (counted in storeUrls), or null. */
  journal: { keys: number; bytes: number } | null;
  recentRuns: { runId: string; status: string; startedAt: string; uniqueUrls: number; linksRead: number }[];
  /** Disk space the state directory really takes, by part (src/stats/disk-usage.ts), caches included. */
  disk: DiskUsage;
}

export interface VerifyProblem {
  file: string;
  code: string;
  message: string;
}

export interface VerifyResult {
  ok: boolean;
  filesChecked: number;
  keysChecked: number;
  problems: VerifyProblem[];
  /** Files that could not be read for an OS reason (not damage), e.g. a catalog nothing can open or copy: not checked, not counted as problems. */
  notChecked?: VerifyProblem[];
}

export type { RunReport };
export type { DiskUsage };

/** One link as a crawler found it: the URL (absolute or relative) and the page it was found on. */
export interface Link {
  url: string;
  /** The URL of the page the link was found on: a relative `url` resolves against it. */
  source?: string;
}

export interface AddOptions {
  /**
   * The URL of the page the links were found on: relative links (and links
   * given as `Link` without a `source`) resolve against it. Without a base a
   * relative link is rejected as `relative-without-base`.
   */
  base?: string;
  /**
   * Receives this call's new URLs (canonical, in the order given) before the
   * round that stores them commits: a crawler writes them to its durable
   * queue here, so no URL is ever stored as seen without being queued (a
   * crash after it and before the commit leaves them queued but not stored).
   * The hooks of one round's calls run together; the round commits once all
   * have resolved, and fails (every call of it rejects, nothing stored) if
   * one rejects. A call split over rounds gets one call per round.
   */
  beforeCommit?: (newUrls: readonly string[]) => Promise<void>;
}

/** A link that is not a usable URL: where it was in the call's list, what it was, and why. */
export interface LinkReject {
  /** Index of the link in the list given to add() (for streams and checkUpdate: the 1-based line number in the run, each element of a list or Link counting one). */
  index: number;
  /** The link's first 200 bytes, as given but for the spaces and tabs around it (trimmed, as a file's line is). */
  url: string;
  reason: RejectReason;
}

/** What one Drum.add() call decided. `links` = `newUrls.length` + `duplicates` + `rejects.length`. */
export interface AddResult {
  /** Canonical form of every link new to the store, in the order given (first occurrence only). Stored when add() resolves. */
  newUrls: string[];
  /** Links already stored, or repeated earlier in this call or in a call committed with it. */
  duplicates: number;
  rejects: LinkReject[];
  links: number;
}

/** Counts of a library run so far (Drum.add, Drum.stream, Drum.checkUpdate). */
export interface LibraryRunStats {
  runId: string;
  /** The run's directory: unique-*.txt (its new URLs), rejects.tsv, report.json once it ends. */
  outDir: string;
  linksRead: number;
  uniqueUrls: number;
  duplicateUrls: number;
  rejectedLines: number;
  rejectsByReason: Partial<Record<RejectReason, number>>;
  /** Merge rounds committed. */
  rounds: number;
}

export interface FeedOptions {
  /** How lines written to a stream (or strings and Buffers given to checkUpdate) are read: URL lines, TSV `source<TAB>target` rows, or 'auto' (TSV when the first data line has a tab). Default 'auto'. */
  format?: 'auto' | 'lines' | 'tsv';
  /** Receives every rejected line as it is routed (checkUpdate; streams emit a 'reject' event). */
  onReject?: (r: LinkReject) => void;
  /**
   * checkUpdate: receives each merge's new URLs (arrival order) before that
   * merge commits. A caller that must never lose a committed new URL writes
   * them durably here (a crash after it and before the commit leaves them
   * recorded but not stored; feeding them again stores them).
   */
  beforeCommit?: (newUrls: readonly string[]) => Promise<void>;
  /**
   * checkUpdate: entries recorded with the run's options (its MANIFEST state
   * and catalog record) beside `format: 'library'`, which they cannot
   * replace: a program that must find its own runs again names itself here
   * (`drum serve` records its shard).
   */
  runOptions?: Readonly<Record<string, string>>;
}

export interface UrlStreamOptions extends Omit<FeedOptions, 'onReject' | 'beforeCommit' | 'runOptions'> {
  /** Accept Link objects and lists of links as chunks (the writable side in object mode). Default false. */
  objectMode?: boolean;
}

/**
 * Drum.stream(): a Transform (node:stream). Write URL lines or TSV rows (or,
 * in object mode, Link objects and lists of links); read the new URLs as
 * "url\n" lines in arrival order. Emits 'reject' with a LinkReject per
 * rejected line.
 */
export interface UrlStream extends Transform {
  /** Counts of the stream's run so far; null before its first link. */
  stats(): LibraryRunStats | null;
  /** The run's report once the stream has ended; null before, and for a stream that carried no link. */
  readonly report: RunReport | null;
}
