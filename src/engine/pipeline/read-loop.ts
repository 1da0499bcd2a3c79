// The reading half of ingest and check: reads each input from a position,
// parses chunks on the pool (keeping a few in flight so the workers stay
// busy, and parsing on this thread when it would otherwise wait for them),
// and hands the parsed chunks, in order, to the job. A damaged input
// (DRUM_INPUT mid-stream) keeps every good line before the damage and is
// reported with the position it was read to; the loop goes on with the next
// input. Hashes an input's raw bytes as they are read when asked (the
// whole-content identity of a large input). Does not route or merge.
// Memory: the reader reuses its buffers (a chunk is dead once the pool has
// copied or parsed it, before the next is read), and each parsed chunk's
// slab goes back to the pool once the job has consumed it.

import { createHash } from 'node:crypto';
import { isDrumError } from '../../errors.js';
import type { ByteStream } from '../../input/open.js';
import { readInput, type InputInfo } from '../../input/read.js';
import type { LineChunk } from '../../input/types.js';
import type { InputRecord } from '../../store/manifest.js';
import type { InputErrorReport as InputError } from '../../stats/report.js';
import type { ReadOptions } from '../api.js';
import type { ParsedChunk } from './parse.js';
import type { ParseJob } from '../workers/parse-pool.js';
import type { Session } from '../session/session.js';

/** Parsed chunks in flight per worker: enough to keep workers busy during a merge. */
const INFLIGHT_PER_WORKER = 4;
/**
 * Chunks this thread may parse itself beyond those, while the oldest is
 * still being parsed on a worker (instead of waiting for it), and only while
 * parsing has cost more than routing: a parse-bound run shares the parsing,
 * one that routing bounds leaves it to the workers.
 */
const INFLIGHT_HERE = 4;

/** An input that ended in an error: every complete line before `offset` (decompressed) was read. The report's type, under the name the pipeline uses. */
export type { InputError };

export interface WholeHash {
  sha256: string;
  bytes: number;
}

export interface ReadLoopParams {
  inputs: InputRecord[];
  /** Where to start: input index, decompressed byte offset and line count within it. */
  from: { input: number; offset: number; line: number };
  /** Inputs to pass over entirely (already ingested). */
  skip: boolean[];
  read: ReadOptions;
  onBytes: (delta: number) => void;
  /** Called for each parsed chunk, in input order; the chunk is invalid once the call (and its promise) is done. */
  onChunk: (p: ParsedChunk) => Promise<void> | void;
  /**
   * Called when an input has been read to its end, or (after onInputError) as far as it could be read.
   * `whole`: its SHA-256 and size over every raw byte, when hashInput asked for it and it was read from
   * byte 0 to its end without an error; else null.
   */
  onInputDone: (input: number, whole: WholeHash | null) => Promise<void> | void;
  /** Inputs to hash while reading them (a streaming SHA-256 over the raw bytes as they are read). */
  hashInput?: (input: number) => boolean;
  /** Called when an input ended in DRUM_INPUT, after every chunk before the damage went to onChunk. */
  onInputError?: (e: InputError) => void;
  /** False: the parse threads' line memos answer but remember nothing (a check). Default true. */
  learn?: boolean;
  /** False: the line memos are not asked at all (ingest --graph needs every line's URL). Default true. */
  memo?: boolean;
  /** Called with each chunk just before it goes to the pool, while its memory is still valid (ingest --graph reads its sources). */
  onRead?: (chunk: LineChunk) => void;
  /** Called once per input when it is opened and its format detected; a throw stops the loop. */
  onInput?: (info: InputInfo) => void;
  /** Stream inputs already open (read ahead by ingest --graph, or a caller's IngestRequest.streams), by path: read from these. */
  streams?: ReadonlyMap<string, ByteStream>;
}

export async function readLoop(s: Session, p: ReadLoopParams): Promise<InputError[]> {
  const errors: InputError[] = [];
  const maxInflight = Math.max(1, s.pool.size * INFLIGHT_PER_WORKER);
  // What the chunks so far cost to parse (on any thread) and to route here: this thread parses only while parsing is the slower.
  let parseMs = 0;
  let routeMs = 0;
  for (let i = p.from.input; i < p.inputs.length; i++) {
    if (p.skip[i]) continue;
    const inp = p.inputs[i]!;
    const here = i === p.from.input;
    const spec = { path: inp.path, startOffset: here ? p.from.offset : 0, startLine: here ? p.from.line : 0 };
    const inflight: ParseJob[] = [];
    const reached = { offset: spec.startOffset, line: spec.startLine };
    // Hashing the buffers already read costs ~0.5-0.7 s of CPU per GiB (SHA-NI), next to ~1 s per GiB to split lines.
    const hash = spec.startOffset === 0 && (p.hashInput?.(i) ?? false) ? createHash('sha256') : null;
    let hashed = 0;
    let broke = false;
    const share = (): boolean => parseMs > routeMs && !s.pool.isParsed(inflight[0]!) && inflight.length < maxInflight + INFLIGHT_HERE;
    const drainOne = async (): Promise<void> => {
      const job = inflight.shift()!;
      const tp = performance.now();
      const parsed = job.result ?? (await job.promise!);
      const tr = performance.now();
      s.timer.add('wait-parse', tr - tp, 0);
      await p.onChunk(parsed);
      const routed = performance.now() - tr;
      s.timer.add('route+merge', routed, parsed.batch.count);
      parseMs += parsed.parseMs ?? 0;
      routeMs += routed;
      s.pool.release(parsed);
    };
    // The reader's next chunk; while it waits for input (a pipe that pauses), the chunks the workers finish are routed.
    const nextChunk = async (it: AsyncIterator<LineChunk>): Promise<IteratorResult<LineChunk>> => {
      const next = it.next();
      let read = false;
      const settled = next.then(() => { read = true; }, () => { read = true; });
      while (!read && inflight.length > 0) {
        if (inflight[0]!.result !== null) await drainOne();
        else await Promise.race([settled, inflight[0]!.promise]);
      }
      return next;
    };
    const it = readInput(spec, i, {
      format: p.read.format ?? 'auto', maxLineBytes: s.policy.maxLineBytes, chunkBytes: s.opts.chunkBytes,
      links: p.read.links, warcLinks: p.read.warcLinks, onBytes: p.onBytes, reuseBuffers: true, onInput: p.onInput, streams: p.streams,
      onRaw: hash === null ? undefined : (b) => {
        hash.update(b);
        hashed += b.length;
      },
    })[Symbol.asyncIterator]();
    try {
      for (let r = await nextChunk(it); r.done !== true; r = await nextChunk(it)) {
        const chunk = r.value;
        reached.offset = chunk.endOffset;
        reached.line = chunk.endLine;
        // Full: wait for the oldest chunk, unless parsing is the slower stage and a worker is still on it; then
        // parse this chunk here (up to INFLIGHT_HERE more) rather than wait.
        while (inflight.length >= maxInflight && !share()) await drainOne();
        // submit() copies or parses the chunk before it returns: the reader may reuse its memory after this.
        p.onRead?.(chunk);
        inflight.push(s.pool.submit(chunk, p.learn ?? true, p.memo ?? true, inflight.length >= maxInflight));
        // Route whatever is ready, in order; a full queue waits now, not when the next chunk comes (a pipe may pause).
        while (inflight.length > 0 && inflight[0]!.result !== null) await drainOne();
        if (inflight.length >= maxInflight && !share()) await drainOne();
      }
    } catch (e) {
      // Closes the input (as a for-await would); not awaited, since a read may still be pending on a paused pipe.
      void it.return?.(undefined)?.catch(() => undefined);
      if (!isDrumError(e, 'DRUM_INPUT')) throw e;
      while (inflight.length > 0) await drainOne();
      const err: InputError = { path: inp.path, code: e.code, message: e.message, input: i, ...reached };
      broke = true;
      p.onInputError?.(err);
      errors.push(err);
    }
    while (inflight.length > 0) await drainOne();
    await p.onInputDone(i, hash !== null && !broke ? { sha256: hash.digest('hex'), bytes: hashed } : null);
  }
  return errors;
}
