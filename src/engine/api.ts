// Types of the public engine API that the CLI, the stream API and tests use:
// what ingest/check take and return, progress events, stats and verify
// results. Types only; the engine implements them in src/engine/drum.ts.

import type { RunReport } from '../stats/report.js';

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
  onProgress?: (p: Progress) => void;
}

export interface CheckRequest extends ReadOptions {
  inputs: string[];
  /** Receives each URL not yet in the store, in input order (first occurrence only). */
  onNew: (url: string) => void;
}

export interface StoreStats {
  stateDir: string;
  formatVersion: number;
  storeUrls: number;
  storeBytes: number;
  files: number;
  buckets: number;
  hostBits: number;
  policy: string;
  /** Expected number of colliding key pairs among storeUrls (docs/design.md). */
  expectedCollisions: number;
  bloom: { bitsPerKey: number; sizeBytes: number; keys: number; expectedFpRate: number } | null;
  recentRuns: { runId: string; status: string; startedAt: string; uniqueUrls: number; linksRead: number }[];
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
}

export type { RunReport };
