// Types shared by the input readers and the stages after them: a LineChunk
// is a batch of complete input lines (the URL field of each, plus the TSV
// source field as base), and a Reject is one unusable line. No logic here.

/**
 * Closed set of reasons a line is rejected. Written verbatim to rejects.tsv
 * and counted in the report's `rejectsByReason`; documented in docs/canonicalization.md.
 */
export const REJECT_REASONS = [
  'too-long', // line longer than maxLineBytes; never buffered
  'invalid-utf8', // bytes are not valid UTF-8
  'control-char', // NUL or other C0 control bytes inside the URL
  'unsupported-scheme', // mailto:, javascript:, data:, ftp:, ... (only http/https kept)
  'javascript', // javascript: link (WARC/HTML extraction)
  'fragment-only', // "#top" with nothing else (WARC/HTML extraction)
  'relative-without-base', // relative reference and no source URL to resolve it against
  'invalid-url', // the URL parser refused it
  'invalid-host', // empty host, spaces in host, bad IP literal, over-long label, ...
  'invalid-port', // port out of range or not numeric
  'empty', // the URL field is empty (e.g. TSV row with empty target)
  'malformed-record', // WARC record truncated or malformed
] as const;

export type RejectReason = (typeof REJECT_REASONS)[number];

/** One rejected line. `excerpt` is at most the first 200 raw bytes of the line. */
export interface Reject {
  /** 1-based line number within its input (for WARC: record number). */
  line: number;
  /** Index of the input in the run's input list. */
  input: number;
  reason: RejectReason;
  excerpt: Buffer;
}

/**
 * A batch of complete lines from one input. For line i, the URL to check is
 * buf[urlStarts[i], urlEnds[i]); for TSV input the source URL (base for
 * relative targets) is buf[baseStarts[i], baseEnds[i]), or baseStarts[i] ===
 * baseEnds[i] when there is none. CR, BOM, blank and comment lines are already
 * dropped; lines over the limit are already in `rejects` and not listed.
 */
export interface LineChunk {
  input: number;
  buf: Buffer;
  count: number;
  urlStarts: Uint32Array;
  urlEnds: Uint32Array;
  baseStarts: Uint32Array;
  baseEnds: Uint32Array;
  /** 1-based line number of each listed line. */
  lines: Float64Array;
  /** Lines rejected by the reader itself (too-long; `empty` TSV rows; WARC reasons), in line order. */
  rejects: Reject[];
  /** Byte offset in the (decompressed) input just after this chunk's last line. */
  endOffset: number;
  /** Line number of the chunk's last line (listed, skipped or rejected). */
  endLine: number;
}
