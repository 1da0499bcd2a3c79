// Decides what an ingest request means against the committed state: which
// inputs (with size and content identity), whether it resumes the store's
// unfinished run or starts a new one, which inputs were already ingested and
// are skipped, which stream inputs read from a caller's stream, and where
// outputs go (refusing to clobber an unrelated non-empty directory). Reads
// only; writes nothing.

import * as fs from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DrumError } from '../../../errors.js';
import { inputIdentity } from '../../../input/identity.js';
import { byInputPath, inputPath, inputSize, type ByteStream } from '../../../input/open.js';
import type { InputRecord, ManifestBody, RunState } from '../../../store/manifest.js';
import type { IngestRequest } from '../../api.js';
import type { InputError } from '../../pipeline/read-loop.js';

/**
 * Inputs up to this size are hashed whole (SHA-256) before the run; larger ones get a sampled hash
 * first (size, first and last MiB) and are hashed whole while read or, to skip them, by one
 * confirming read (known-inputs.ts). Tuning.fullHashMaxBytes overrides it.
 */
export const FULL_HASH_MAX_BYTES = 64 << 20;
export const URLS_PER_FILE = 1_000_000;

export interface RunPlan {
  resume: boolean;
  run: RunState;
  /** Per input: skipped because an earlier complete run already ingested the same bytes. */
  skipped: boolean[];
  /** The unfinished run this request abandons (a different request came), if any. */
  abandoned: RunState | null;
}

export async function describeInputs(paths: string[], fullHashMaxBytes = FULL_HASH_MAX_BYTES): Promise<InputRecord[]> {
  const out: InputRecord[] = [];
  for (const p of paths) {
    const abs = inputPath(p);
    const size = await inputSize(abs);
    if (size === null) {
      // Stdin, a FIFO, `<(...)`, /dev/stdin or a device: read as a stream; no identity, never skipped or resumed.
      out.push({ path: abs, bytes: 0, sha256: '', sampled: false });
      continue;
    }
    const sampled = size > fullHashMaxBytes;
    const id = await inputIdentity(abs, { method: sampled ? 'sampled' : 'full' });
    out.push({ path: abs, bytes: size, sha256: id.sha256, sampled, ...(sampled ? { sample: id.sha256 } : {}) });
  }
  return out;
}

/**
 * How a run reads its inputs, as recorded with each (InputRecord.read): the same bytes read with another
 * format, WARC link choice, line limit or policy give other links, so they are not "already ingested".
 */
export function readKeyOf(req: Pick<IngestRequest, 'format' | 'links' | 'warcLinks'>, policy: { id: string; maxLineBytes: number }): string {
  const r = readingOf(req);
  return `format=${r.format} links=${r.links} warcLinks=${r.warcLinks} maxLineBytes=${policy.maxLineBytes} policy=${policy.id}`;
}

/** The read options of a request with their defaults filled in: what a run records of how it reads. */
function readingOf(req: Pick<IngestRequest, 'format' | 'links' | 'warcLinks'>): { format: string; links: string; warcLinks: string } {
  return { format: req.format ?? 'auto', links: req.links ?? 'nav', warcLinks: req.warcLinks ?? 'html' };
}

/** The caller's streams (IngestRequest.streams) for the run's stream inputs, by input path; a regular file's is not used. */
export function callerStreams(req: Pick<IngestRequest, 'streams'>, inputs: readonly InputRecord[]): ReadonlyMap<string, ByteStream> | undefined {
  if (req.streams === undefined) return undefined;
  const given = byInputPath(req.streams);
  return new Map(inputs.filter((i) => i.sha256 === '' && given.has(i.path)).map((i) => [i.path, given.get(i.path)!]));
}

/** Runs this process has named: part of every id, so two of its runs never share one. */
let runsNamed = 0;

/**
 * A run's id: its UTC start to the millisecond, this process's run count
 * (16 bits) and 16 random bits, e.g. 20261127-093457-607-002aa0ec. A process
 * can end several runs a second (drum serve's rounds), and two runs with one
 * id would share a run directory, a catalog record and host-count markers.
 */
export function newRunId(now = new Date()): string {
  const t = now.toISOString().replace(/[-:]/g, '').replace('T', '-').replace('.', '-').slice(0, 19);
  const n = (runsNamed++ & 0xffff).toString(16).padStart(4, '0');
  return `${t}-${n}${randomBytes(2).toString('hex')}`;
}

function sameInputs(a: InputRecord[], b: InputRecord[]): boolean {
  // A large input's record carries its whole hash once read; its sample identifies it on both sides.
  const id = (x: InputRecord): string => x.sample ?? x.sha256;
  // Read the same way too (InputRecord.read): a rest read under another line limit would be recorded under the first one.
  return a.length === b.length && a.every((x, i) => x.path === b[i]!.path && x.bytes === b[i]!.bytes && id(x) === id(b[i]!) && x.read === b[i]!.read &&
    x.path !== '-' && x.sha256 !== '');
}

function readOptionsOf(req: IngestRequest): Record<string, string> {
  const o: Record<string, string> = { ...readingOf(req) };
  if (req.revisitAfter !== undefined) o.revisitAfter = String(req.revisitAfter);
  if (req.graph === true) o.graph = 'true';
  return o;
}

/**
 * Plans the run. `alreadyIngested(input)` says whether a complete earlier run
 * ingested these exact bytes (manifest history or the catalog).
 */
export function planRun(
  stateDir: string,
  body: ManifestBody,
  req: IngestRequest,
  inputs: InputRecord[],
  alreadyIngested: (i: InputRecord) => boolean,
  urlsPerFile = URLS_PER_FILE,
  nowMs = Date.now(),
): RunPlan {
  const last = body.run;
  const options = readOptionsOf(req);
  const outWanted = req.outDir === undefined ? null : resolve(req.outDir);
  if (last !== null && last.status === 'running') {
    const same = sameInputs(last.inputs, inputs) && (outWanted === null || outWanted === last.outDir) &&
      JSON.stringify(last.options) === JSON.stringify(options);
    if (same) return { resume: true, run: last, skipped: last.skipped ?? inputs.map(() => false), abandoned: null };
  }
  const abandoned = last !== null && last.status === 'running' ? { ...last, status: 'abandoned' as const } : null;
  const runId = newRunId();
  const outDir = outWanted ?? join(resolve(stateDir), 'runs', runId);
  // A revisit run reads every input: an input ingested before can hold URLs due again; a graph run wants every row's pair.
  const skipped = inputs.map((i) => !req.force && req.revisitAfter === undefined && req.graph !== true && i.path !== '-' && alreadyIngested(i));
  // Checked with nothing to do too: an --out the run could not use is refused the same either way; only a
  // non-empty one is fine then (nothing is written into it: the same command run again skips its inputs).
  const work = skipped.some((x) => !x);
  checkOutDirPlace(stateDir, outDir);
  checkOutDir(outDir, work);
  const first = skipped.findIndex((s) => !s);
  const run: RunState = {
    runId,
    status: 'running',
    startedAt: new Date().toISOString(),
    finishedAt: null,
    inputs,
    skipped,
    options,
    outDir,
    position: { input: first < 0 ? inputs.length : first, offset: 0, line: 0 },
    rounds: 0,
    unique: { file: 1, bytes: 0, urls: 0, urlsPerFile },
    rejectsBytes: 0,
    counters: {},
    ...(req.revisitAfter !== undefined
      ? { revisit: { afterSec: req.revisitAfter, fromSec: Math.floor(nowMs / 1000), file: 1, bytes: 0, urls: 0, urlsPerFile } }
      : {}),
    ...(req.graph === true ? { graph: { file: 1, bytes: 0, urls: 0, urlsPerFile } } : {}),
  };
  return { resume: false, run, skipped, abandoned };
}

/** State folders drum empties or owns: an output directory there would be deleted or mixed with state. */
/** The folders of a state directory that opening its store empties or owns (drum content adds its content/). */
export const MANAGED_PARTS: readonly string[] = ['store', 'work', 'catalog'];

/** The managed folder of `state` (one of `parts`) that `path` is or is inside, if any. */
function managedPart(state: string, path: string, parts: readonly string[]): string | undefined {
  return parts.map((m) => join(state, m)).find((d) => path === d || path.startsWith(`${d}${sep}`));
}

/** True when `dir` is a drum state directory: it holds a MANIFEST or a writer LOCK. */
function isStateDir(dir: string): boolean {
  return fs.existsSync(join(dir, 'MANIFEST')) || fs.existsSync(join(dir, 'LOCK'));
}

/**
 * A run's outputs may go under a state's runs/ or anywhere outside a state
 * directory, never into the managed parts of this state or of any other drum
 * state found walking up from the output directory (that store's next open
 * would delete them). `runsDir` is the state's folder the command writes its
 * runs to by default (runs/; drum content's content-runs/), which a refusal
 * names as the place to use instead.
 */
export function checkOutDirPlace(stateDir: string, outDir: string, parts: readonly string[] = MANAGED_PARTS, runsDir = 'runs'): void {
  const out = resolve(outDir);
  const refuse = (state: string): never => {
    throw new DrumError('DRUM_CLOBBER', `outDir (--out) ${out} is the drum state directory ${state} or inside its ${parts.join('/, ')}/ (drum deletes or owns what is there); use <state>/${runsDir}/ or a directory outside ${state}`, { file: out });
  };
  const inManaged = (state: string): boolean => out === state || managedPart(state, out, parts) !== undefined;
  const own = resolve(stateDir);
  if (inManaged(own)) refuse(own);
  for (let dir = out, up = dirname(out); ; dir = up, up = dirname(up)) {
    if (isStateDir(dir) && inManaged(dir)) refuse(dir);
    if (up === dir) return;
  }
}

/**
 * Refuses an input file inside the managed parts of the state directory it
 * is ingested into: opening the store empties work/ and removes what store/
 * does not name, so the input would be deleted before it is read. Checked
 * before the store opens (the CLI); streams and stdin pass.
 */
export function refuseInputsInState(stateDir: string, inputs: readonly string[], parts: readonly string[] = MANAGED_PARTS): void {
  // Through symlinks on either side: a link to the state directory, or to an input kept in it.
  const real = (p: string): string => {
    try {
      return fs.realpathSync(p);
    } catch {
      return resolve(p); // not there yet (a new state): compared as given
    }
  };
  const state = real(stateDir);
  for (const p of inputs) {
    if (p === '-') continue;
    const abs = real(p);
    const m = managedPart(state, abs, parts);
    if (m !== undefined) {
      throw new DrumError('DRUM_BAD_OPTION', `input ${abs} is inside ${m}/, which drum empties or owns when it opens the store; move it out of ${state} first`, { file: abs });
    }
  }
}

/**
 * A new run's output directory must be absent or a directory, and empty when
 * the run writes into it (`writes`) but for the files named in `own` (a
 * command's own outputs, which running it again replaces): drum never mixes
 * its files into unrelated ones.
 */
export function checkOutDir(dir: string, writes = true, own: readonly string[] = []): void {
  let entries: string[];
  try {
    if (!fs.statSync(dir).isDirectory()) throw new DrumError('DRUM_CLOBBER', `outDir (--out) ${dir} exists and is not a directory`, { file: dir });
    entries = fs.readdirSync(dir);
  } catch (e) {
    if (e instanceof DrumError) throw e;
    return; // absent: created later
  }
  const foreign = entries.filter((f) => !own.includes(f));
  if (writes && foreign.length > 0) {
    throw new DrumError('DRUM_CLOBBER', `outDir (--out) ${dir} holds ${join(dir, foreign[0]!)}; drum writes a run's files only into a new or empty directory`, { file: dir });
  }
}

/** The run's inputs that ended in an error, as the report and the exit status give them. */
export function damagedInputs(run: RunState): InputError[] {
  return run.inputs.flatMap((x, input) => (x.damaged === undefined ? [] : [{ path: x.path, input, ...x.damaged }]));
}
