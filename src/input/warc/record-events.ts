// The events and options of the streaming WARC record reader (records.ts):
// what one record, or one malformed stretch, looks like to its consumer.
// Types only.

/** One complete record. `block` is the whole block when wanted and small enough, else null. */
export interface WarcRecordEvent {
  kind: 'record';
  /** 1-based record number in the file. */
  number: number;
  /** Lowercased WARC-Type. */
  type: string;
  /** WARC-Target-URI without the angle brackets some 1.0 writers add; '' if none. */
  targetUri: string;
  /** Content-Type of the block (WARC header), '' if none. */
  contentType: string;
  /** WARC-Payload-Digest as written ('' if none); content dedup checks it against its own digest. */
  payloadDigest: string;
  length: number;
  block: Buffer | null;
  /** First bytes of a wanted block that was over the size cap (for its HTTP headers); else null. */
  head: Buffer | null;
  /** Decompressed byte offset just after the record (trailer included). */
  endOffset: number;
}

export interface WarcMalformedEvent {
  kind: 'malformed';
  number: number;
  /** First bytes of the record (its header) for the reject excerpt. */
  excerpt: Buffer;
  /** Offset where reading goes on: the next "WARC/" line, or the end of input. */
  endOffset: number;
}

export type WarcEvent = WarcRecordEvent | WarcMalformedEvent;

export interface WarcReaderOptions {
  /** Whether the caller wants this record's block (called once per header). */
  want: (type: string, contentType: string) => boolean;
  /** Largest block kept whole. */
  maxRecordBytes: number;
  /** How much of an over-cap wanted block is kept. */
  headBytes: number;
}
