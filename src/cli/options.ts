// The one place command-line option values (strings and flags as commander
// parsed them) and the environment become DrumOptions, ReadOptions,
// canonical policy options and IngestRequest fields. Throws DRUM_BAD_OPTION
// (exit status 2) on any bad value. Reads no file but a --rules file; does
// not open a store or print; range checks the engine also makes are left to
// resolveOptions.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DrumError } from '../errors.js';
import { inputPath } from '../input/open.js';
import { minimumMemoryBytes, parseSize, type DrumOptions, type Tuning } from '../options.js';
import type { CanonicalPolicyOptions, ProfileName } from '../canonicalize/types.js';
import type { InputFormat, IngestRequest, ReadOptions } from '../engine/api.js';
import { assertStdinOnce } from '../engine/job-args.js';

/** Option values as commander hands them to an action (camelCase keys, strings or booleans). */
export interface RawOptions {
  state?: string;
  out?: string;
  format?: string;
  links?: string;
  warcLinks?: string;
  maxLineBytes?: string;
  canonical?: string;
  profile?: string;
  rules?: string;
  surt?: boolean;
  stripWww?: boolean;
  foldHttps?: boolean;
  stripIndex?: boolean;
  lowercasePath?: boolean;
  memory?: string;
  buckets?: string;
  hostBits?: string;
  cacheEntries?: string;
  recentEntries?: string;
  journalKeys?: string;
  lineMemoEntries?: string;
  bloom?: string;
  bloomBits?: string;
  workers?: string;
  mergeEvery?: string;
  tuning?: string;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  /** false with --no-progress. */
  progress?: boolean;
  /** false with --no-fsync. */
  fsync?: boolean;
  revisitAfter?: string;
  graph?: boolean;
  /** false with --no-values (ingest: create a keys-only store). */
  values?: boolean;
  force?: boolean;
  forcePolicy?: boolean;
  top?: string;
  /** forget --host, repeatable. */
  host?: string[];
  limit?: string;
}

export const DEFAULT_STATE_DIR = './drum-state';

function bad(msg: string): never {
  throw new DrumError('DRUM_BAD_OPTION', msg);
}

/** Parses a non-negative integer: digits (underscores allowed) or a power of two written 2^N. */
export function parseCount(flag: string, text: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const t = text.trim();
  let n: number;
  const pow = /^2\^(\d{1,2})$/.exec(t);
  if (pow) n = 2 ** Number(pow[1]);
  else if (/^\d[\d_]*$/.test(t)) n = Number(t.replaceAll('_', ''));
  else bad(`${flag} must be a whole number, got ${JSON.stringify(text)}`);
  if (!Number.isSafeInteger(n) || n < min || n > max) bad(`${flag} must be in [${min}, ${max}], got ${text}`);
  return n;
}

function choice<T extends string>(flag: string, text: string | undefined, allowed: readonly T[]): T | undefined {
  if (text === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(text)) bad(`${flag} must be one of ${allowed.join('|')}, got ${JSON.stringify(text)}`);
  return text as T;
}

/** The state directory: --state, else $DRUM_STATE, else ./drum-state; absolute. */
/** True when the state directory is the default one (no --state, no $DRUM_STATE). */
export function isDefaultState(raw: RawOptions, env: Readonly<Record<string, string | undefined>>): boolean {
  return raw.state === undefined && !env['DRUM_STATE'];
}

export function stateDirFrom(raw: RawOptions, env: Readonly<Record<string, string | undefined>>, cwd = process.cwd()): string {
  const dir = raw.state ?? (env['DRUM_STATE'] || undefined) ?? DEFAULT_STATE_DIR;
  if (dir.trim() === '') bad('--state must not be empty');
  return resolve(cwd, dir);
}

export function readOptionsFrom(raw: RawOptions): ReadOptions {
  const out: ReadOptions = {};
  const format = choice<InputFormat>('--format', raw.format, ['auto', 'lines', 'tsv', 'warc']);
  const links = choice('--links', raw.links, ['nav', 'all'] as const);
  const warcLinks = choice('--warc-links', raw.warcLinks, ['html', 'metadata', 'both'] as const);
  if (format) out.format = format;
  if (links) out.links = links;
  if (warcLinks) out.warcLinks = warcLinks;
  return out;
}

/**
 * The canonical policy the user asked for, or undefined when they gave no policy option
 * at all: the engine then keeps the policy an existing store was built with (and uses the
 * default for a new store), so `drum check` needs no flags repeated.
 */
export function canonicalFrom(raw: RawOptions, cwd = process.cwd()): CanonicalPolicyOptions | undefined {
  const mode = choice('--canonical', raw.canonical, ['default', 'none'] as const);
  const profile = choice<ProfileName>('--profile', raw.profile, ['drum', 'heritrix', 'ia', 'nutch', 'w3lib', 'safebrowsing']);
  const p: CanonicalPolicyOptions = {};
  if (mode) p.mode = mode;
  if (profile) p.profile = profile;
  if (raw.rules !== undefined) {
    try {
      p.rules = readFileSync(resolve(cwd, raw.rules), 'utf8');
    } catch (e) {
      bad(`--rules ${raw.rules}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
  }
  if (raw.surt) p.surt = true;
  if (profile !== undefined && profile !== 'drum' && (raw.stripWww || raw.foldHttps || raw.stripIndex || raw.lowercasePath)) {
    bad(`--profile ${profile} cannot be combined with --strip-www, --fold-https, --strip-index or --lowercase-path (they belong to the drum profile)`);
  }
  if (raw.stripWww) p.stripWww = true;
  if (raw.foldHttps) p.foldHttps = true;
  if (raw.stripIndex) p.stripIndex = true;
  if (raw.lowercasePath) p.lowercasePath = true;
  if (raw.maxLineBytes !== undefined) p.maxLineBytes = parseCount('--max-line-bytes', raw.maxLineBytes, 16, 1 << 26);
  if (mode === 'none' && (p.stripWww || p.foldHttps || p.stripIndex || p.lowercasePath)) {
    bad('--canonical none dedupes raw lines; it cannot be combined with --strip-www, --fold-https, --strip-index or --lowercase-path');
  }
  return Object.keys(p).length > 0 ? p : undefined;
}

/** DrumOptions from the store flags; only the options given are set (the engine fills defaults). */
export function drumOptionsFrom(raw: RawOptions, opts: { readOnly?: boolean; cwd?: string } = {}): DrumOptions {
  const o: DrumOptions = {};
  if (raw.memory !== undefined) {
    o.memoryBytes = parseSize(raw.memory);
  }
  if (raw.hostBits !== undefined) o.hostBits = parseCount('--host-bits', raw.hostBits, 0, 32);
  if (raw.buckets !== undefined) {
    o.buckets = parseCount('--buckets', raw.buckets, 1, 4096);
    if ((o.buckets & (o.buckets - 1)) !== 0) bad(`--buckets must be a power of two, got ${raw.buckets}`);
  }
  if (raw.cacheEntries !== undefined) o.cacheEntries = parseCount('--cache-entries', raw.cacheEntries, 0, 2 ** 28);
  if (raw.recentEntries !== undefined) o.recentEntries = parseCount('--recent-entries', raw.recentEntries, 0, 2 ** 28);
  if (raw.lineMemoEntries !== undefined) o.lineMemoEntries = parseCount('--line-memo-entries', raw.lineMemoEntries, 0, 2 ** 28);
  const bloom = choice('--bloom', raw.bloom, ['off', 'gate', 'lossy'] as const);
  if (bloom) o.bloom = bloom;
  if (raw.bloomBits !== undefined) o.bloomBitsPerKey = parseCount('--bloom-bits', raw.bloomBits, 1, 64);
  if (raw.workers !== undefined) o.workers = parseCount('--workers', raw.workers, 0, 64);
  if (raw.journalKeys !== undefined) o.journalKeys = parseCount('--journal-keys', raw.journalKeys, 0, 2 ** 24);
  if (raw.mergeEvery !== undefined) o.mergeEvery = parseCount('--merge-every', raw.mergeEvery, 1, 2 ** 32 - 1);
  if (raw.tuning !== undefined) o.tuning = tuningFrom(raw.tuning);
  const canonical = canonicalFrom(raw, opts.cwd);
  if (canonical) o.canonical = canonical;
  if (raw.forcePolicy) o.forcePolicy = true;
  if (raw.fsync === false) o.fsync = false;
  if (raw.values === false) o.values = false;
  if (opts.readOnly) o.readOnly = true;
  // Under 1 MiB the engine's range check would answer first; name the floor these options need, as it does above.
  if (o.memoryBytes !== undefined && o.memoryBytes < 1 << 20) {
    bad(`--memory ${raw.memory} is under the ${minimumMemoryBytes(o) / 2 ** 20} MiB drum needs with these options (docs/cli.md, --memory)`);
  }
  return o;
}

const TUNING_KEYS: readonly (keyof Tuning)[] = [
  'bufferEntries', 'maxBucketEntries', 'sortEntries', 'maxRoundEntries', 'urlsPerFile', 'fullHashMaxBytes', 'workerDispatchMin', 'typescriptFastPath',
];

/** --tuning: a JSON object of Tuning limits (positive whole numbers), for tests and experiments. */
export function tuningFrom(text: string): Tuning {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    bad(`--tuning must be a JSON object, got ${JSON.stringify(text)}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) bad(`--tuning must be a JSON object, got ${JSON.stringify(text)}`);
  const t: Tuning = {};
  for (const [k, n] of Object.entries(v)) {
    if (!(TUNING_KEYS as readonly string[]).includes(k)) bad(`--tuning: unknown limit ${JSON.stringify(k)} (known: ${TUNING_KEYS.join(', ')})`);
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) bad(`--tuning: ${k} must be a positive whole number, got ${JSON.stringify(n)}`);
    t[k as keyof Tuning] = n;
  }
  return t;
}

/**
 * The output directory of a command that writes its files into one (forget,
 * content): absolute, or undefined for the default. `--out -` (stdout) is
 * ingest's alone, so here it is DRUM_BAD_OPTION, not a directory named `-`.
 */
export function outDirFrom(out: string | undefined, command: string, cwd: string): string | undefined {
  if (out === undefined) return undefined;
  if (out.trim() === '') bad('--out must not be empty');
  if (out === '-') bad(`drum ${command} writes its files into a directory: --out - (new URLs on stdout) is for drum ingest`);
  return resolve(cwd, out);
}

/** The IngestRequest fields from argv (the caller adds onProgress). */
export function ingestRequestFrom(raw: RawOptions, inputs: string[], cwd = process.cwd()): IngestRequest {
  if (inputs.length === 0) bad('give at least one input file (or - for stdin)');
  assertStdinOnce(inputs);
  const req: IngestRequest = { inputs: inputs.map((i) => inputPath(i, cwd)), ...readOptionsFrom(raw) };
  if (raw.out !== undefined) {
    if (raw.out.trim() === '') bad('--out must not be empty');
    req.outDir = resolve(cwd, raw.out);
  }
  if (raw.force) req.force = true;
  if (raw.revisitAfter !== undefined) {
    const sec = parseDuration(raw.revisitAfter);
    if (sec === null) bad(`--revisit-after must be a duration such as 30d, 12h, 90m, 45s or 0s, got ${JSON.stringify(raw.revisitAfter)}`);
    req.revisitAfter = sec;
  }
  if (raw.graph === true) req.graph = true;
  return req;
}

/** Inputs for check/canonicalize: none means stdin. */
export function inputsFrom(inputs: string[], cwd = process.cwd()): string[] {
  assertStdinOnce(inputs);
  return inputs.length === 0 ? ['-'] : inputs.map((i) => inputPath(i, cwd));
}

export function topFrom(raw: RawOptions): number {
  return raw.top === undefined ? 20 : parseCount('--top', raw.top, 1, 1_000_000);
}

export function limitFrom(raw: RawOptions): number {
  return raw.limit === undefined ? 20 : parseCount('--limit', raw.limit, 1, 1_000_000);
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** Parses `30d`, `12h`, `90m`, `45s`, `2w`, `0s` (or plain seconds) into seconds; null when it is not a duration. */
export function parseDuration(text: string): number | null {
  const m = /^(\d+)\s*([smhdw]?)$/i.exec(text.trim());
  if (m === null) return null;
  const n = Number(m[1]) * DURATION_UNITS[(m[2] || 's').toLowerCase()]!;
  return Number.isSafeInteger(n) && n < 2 ** 32 ? n : null;
}
