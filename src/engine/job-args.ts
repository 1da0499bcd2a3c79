// Checks the arguments a library caller gives Drum.open and a job (ingest,
// check, resolve, forget, urls, stream, checkUpdate) against their documented shape, and
// refuses the others with DRUM_BAD_OPTION before the job starts, so that a
// wrong call (`forget('http://…')`, `ingest({ inputs: 'links.txt' })`, a
// format drum does not read, stdin `-` given twice) changes nothing and ends
// no run of add() calls. The CLI refuses stdin twice with the same check.
// Does not check that inputs exist or can be read (the job does: DRUM_INPUT),
// nor the options a job checks itself (revisitAfter, hosts, runOptions).
// REQUIRES: nothing; pure checks on plain values.

import { DrumError } from '../errors.js';

const READ_FORMATS: readonly unknown[] = [undefined, 'auto', 'lines', 'tsv', 'warc'];
const FEED_FORMATS: readonly unknown[] = [undefined, 'auto', 'lines', 'tsv'];

function bad(message: string): DrumError {
  return new DrumError('DRUM_BAD_OPTION', message);
}

function isIterable(v: unknown): v is Iterable<unknown> {
  return v !== null && v !== undefined && typeof (v as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function';
}

function assertPaths(call: string, inputs: unknown): void {
  if (!Array.isArray(inputs) || inputs.some((p) => typeof p !== 'string')) throw bad(`${call}: inputs must be a list of paths (strings)`);
  assertStdinOnce(inputs as string[]);
}

/** Inputs of a library job or a command: stdin (`-`) at most once, since one stream cannot be read twice. */
export function assertStdinOnce(inputs: readonly string[]): void {
  if (inputs.filter((p) => p === '-').length > 1) throw bad('stdin (-) can be given only once');
}

function assertFormat(call: string, format: unknown, allowed: readonly unknown[]): void {
  if (!allowed.includes(format)) throw bad(`${call}: format must be one of ${allowed.filter(Boolean).join(', ')}, got ${String(format)}`);
}

/** Drum.open: a state directory path and an options object (whose values resolveOptions checks). */
export function assertOpenArgs(stateDir: unknown, opts: unknown): void {
  if (typeof stateDir !== 'string' || stateDir === '') throw bad('Drum.open() takes the state directory path as a non-empty string');
  if (opts === null || typeof opts !== 'object') throw bad('Drum.open() options must be an object');
}

/** ingest, check, resolve: an object whose `inputs` is a list of paths, with a format drum reads. */
export function assertReadRequest(call: string, req: unknown): void {
  if (req === null || typeof req !== 'object') throw bad(`${call}() takes an object with inputs`);
  const r = req as { inputs?: unknown; format?: unknown };
  assertPaths(call, r.inputs);
  assertFormat(call, r.format, READ_FORMATS);
}

/** forget: a list of URLs (not one URL as a string), or an object whose inputs and urls are lists. */
export function assertForgetRequest(req: unknown): void {
  if (typeof req === 'string') throw bad('forget() takes a list of URLs, not a single string');
  if (req === null || typeof req !== 'object') throw bad('forget() takes a list of URLs or an object with inputs, urls or hosts');
  if (isIterable(req)) return;
  const r = req as { inputs?: unknown; urls?: unknown; format?: unknown };
  if (r.inputs !== undefined) assertPaths('forget', r.inputs);
  if (r.urls !== undefined && (typeof r.urls === 'string' || !isIterable(r.urls))) throw bad('forget: urls must be a list of URLs');
  assertFormat('forget', r.format, READ_FORMATS);
}

/** urls: a list of docIDs. */
export function assertDocIds(docIds: unknown): void {
  if (typeof docIds === 'string' || !isIterable(docIds)) throw bad('urls() takes a list of docIDs');
}

/** stream, checkUpdate: the text format of their strings and Buffers. */
export function assertFeedFormat(call: string, opts: unknown): void {
  if (opts === null || typeof opts !== 'object') throw bad(`${call}() options must be an object`);
  assertFormat(call, (opts as { format?: unknown }).format, FEED_FORMATS);
}
