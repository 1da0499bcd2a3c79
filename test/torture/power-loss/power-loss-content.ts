// Power-loss trials of `drum content` (src/content/content-run.ts), shared
// by power-loss-content.test.ts (beside it; a sample) and scripts/torture.ts
// (every operation): runContent over WARC A (a generated WARC's first
// records: exact and near copies among its documents, rounds of
// CONTENT_ROUND_DOCS, the last one short) into a new state directory and a
// new --out, its store and its outputs opened with the fault seam, loses
// power before its mutating operation #at (from there on every operation
// throws: nothing more reaches the disk). The world (state and outputs) is
// rebuilt as power-loss.ts leaves it (the kindest loss, or torn from a seed:
// power-loss-torn.ts; the same checks for both). What docs/content.md
// promises, and is checked here:
// - the content store is sound (`verifyContent`; no store at all when the
//   loss came before its first manifest was durable) and holds exactly the
//   documents of whole rounds the run committed, as a prefix of the run's
//   documents: at least those of every commit whose directory fsync ran
//   (nothing committed is lost), at most those of the last commit whose
//   rename ran (nothing half-committed is visible);
// - the same command run again (same store, same --out) completes, and its
//   content-duplicates.tsv lists each committed document as an exact
//   duplicate of its earliest copy (itself, unless an earlier document had
//   its bytes) and gives every later document the uninterrupted run's line;
// - a run of WARC B (the generated WARC's other records: copies of A's
//   documents among them) then writes the uninterrupted reference's B
//   duplicates, which depend on every document, key and band the store
//   holds, and the store is sound;
// - a run that returned before the loss (#at past its last operation) left
//   its duplicates file and report durable, whole, under their names.
// A refusal of the store or of the --out is a failure: none is documented
// after a power loss. Asserts nothing; callers judge `ok`.
// Does not cover a store that already holds runs before the loss (the
// rerun's check covers a store holding a run), nor `--no-fsync` (not
// crash-safe, docs/reliability.md).
// REQUIRES: inputs written once, before contentRef; the WARC's document
// URLs distinct (writeContentInputs checks).

import * as fs from 'node:fs';
import { join } from 'node:path';
import { generateWarc } from '../../../scripts/gen-warc.js';
import { CONTENT_DIR, CONTENT_MANIFEST, readContentManifest, type NearMethod } from '../../../src/content/content-manifest.js';
import { DUPLICATES_FILE, REPORT_FILE, runContent, type ContentReport, type ContentRunOptions } from '../../../src/content/content-run.js';
import { verifyContent } from '../../../src/content/content-verify.js';
import { DocLog } from '../../../src/content/doc-log.js';
import { isDrumError } from '../../../src/errors.js';
import { DrumFs, type FaultHook, type FsOp } from '../../../src/io/fs.js';
import { isCrash } from '../../helpers/crash.js';
import { PowerCut, tornOf } from './power-cut.js';
import { Tear } from './power-loss-torn.js';
import type { TrialOutcome } from './power-loss-run.js';

/** Documents per round: A's 28 documents make rounds of 12, 12 and 4. */
export const CONTENT_ROUND_DOCS = 12;

export interface ContentInputs {
  a: string;
  b: string;
}

/**
 * One generated WARC of 50 documents on hosts of 10 articles (a fifth with
 * exact copies, a fifth with near ones), split by record: A its records up
 * to its 30th response, B the rest, so many of B's documents copy A's.
 */
export function writeContentInputs(dir: string): ContentInputs {
  const whole = join(dir, 'whole.warc');
  generateWarc({ docs: 50, seed: 5, out: whole, perHost: 10, exactShare: 0.2, nearShare: 0.2 });
  const records = warcRecords(fs.readFileSync(whole));
  let responses = 0;
  const cut = records.findIndex((r) => r.includes('WARC-Type: response\r\n') && ++responses === 30);
  const inputs = { a: join(dir, 'a.warc'), b: join(dir, 'b.warc') };
  fs.writeFileSync(inputs.a, Buffer.concat(records.slice(0, cut)));
  fs.writeFileSync(inputs.b, Buffer.concat(records.slice(cut)));
  return inputs;
}

/** An uncompressed WARC's records, each whole (its header's Content-Length, then CRLF CRLF). */
function warcRecords(b: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < b.length;) {
    const head = b.indexOf('\r\n\r\n', at);
    const len = Number(/Content-Length: (\d+)/.exec(b.toString('latin1', at, head))?.[1]);
    const end = head + 4 + len + 4;
    out.push(b.subarray(at, end));
    at = end;
  }
  return out;
}

/** A commit of the content manifest in the reference run: the operation numbers of its rename and of its directory's fsync, and the documents it names. */
interface Commit {
  renamed: number;
  durable: number;
  docs: number;
}

export interface ContentRef {
  near: NearMethod;
  /** Mutating operations of A's run. */
  ops: number;
  /** A's documents' URLs, in record order. */
  docs: string[];
  /** A's duplicates file, and its lines by URL. */
  aText: string;
  aLines: Map<string, string>;
  /** B's duplicates file after A. */
  bText: string;
  /** The manifest's commits in A's run: the new store's, each round's, the run count's. */
  commits: Commit[];
}

/** A run of `input` in `world` (its state, the output directory `out`), through `hook` when given. */
function contentRun(world: string, near: NearMethod, input: string, out: string, hook: FaultHook | null, onDoc?: ContentRunOptions['onDoc']): Promise<ContentReport> {
  return runContent({
    stateDir: join(world, 'state'), outDir: join(world, out), inputs: [input], near, threshold: 3, roundDocs: CONTENT_ROUND_DOCS, fsync: true, faultHook: hook, onDoc,
  });
}

const duplicatesOf = (world: string, out: string): string => fs.readFileSync(join(world, out, DUPLICATES_FILE), 'utf8');

/** The runs never interrupted: A (its operations and commits traced), then B. */
export async function contentRef(dir: string, inputs: ContentInputs, near: NearMethod): Promise<ContentRef> {
  const world = join(dir, `ref-${near}`);
  fs.mkdirSync(world); // as a trial's world is made
  const content = join(world, 'state', CONTENT_DIR);
  const commits: Commit[] = [];
  let ops = 0;
  let renamed = -1;
  const hook = (op: FsOp, path: string): void => {
    if (op === 'rename' && path === join(content, CONTENT_MANIFEST)) renamed = ops;
    // The hook runs before its operation, after the rename: the manifest read now is the one this fsync makes durable.
    if (op === 'fsync' && path === content && renamed >= 0) {
      commits.push({ renamed, durable: ops, docs: readContentManifest(content)!.docs });
      renamed = -1;
    }
    ops++;
  };
  const docs: string[] = [];
  await contentRun(world, near, inputs.a, 'out-a', hook, (url) => void docs.push(url));
  if (new Set(docs).size !== docs.length) throw new Error('the WARC repeats a document URL: its duplicates lines do not name their documents');
  const aText = duplicatesOf(world, 'out-a');
  const aLines = new Map(aText.split('\n').filter((l) => l !== '').map((l) => [l.split('\t')[0]!, l]));
  await contentRun(world, near, inputs.b, 'out-b', null);
  return { near, ops, docs, aText, aLines, bText: duplicatesOf(world, 'out-b'), commits };
}

export interface ContentOutcome extends TrialOutcome {
  near: NearMethod;
}

/** Power lost before A's operation #at (#ops: just after the run returned); a seed tears the disk. The checks on what that leaves. */
export async function contentLossAt(dir: string, inputs: ContentInputs, ref: ContentRef, at: number, torn?: number): Promise<ContentOutcome> {
  const tear = torn === undefined ? null : new Tear(torn);
  const world = join(dir, `w-${ref.near}-${at}`);
  const lost = join(dir, `lost-${ref.near}-${at}`);
  fs.mkdirSync(world);
  // The operations of a merge come in an order of their own (its files' fsyncs overlap), but its commits at the reference's numbers.
  const renames: number[] = [];
  const manifest = join(world, 'state', CONTENT_DIR, CONTENT_MANIFEST);
  const cut = new PowerCut(world, at, (op, path, nth) => {
    if (op === 'rename' && path === manifest) renames.push(nth);
  });
  let problem = '';
  let completed = false;
  try {
    await contentRun(world, ref.near, inputs.a, 'out-a', cut.hook);
    completed = true;
    if (cut.where !== null) problem = 'the run returned although an operation failed';
  } catch (e) {
    if (!isCrash(e)) problem = `the interrupted run failed otherwise: ${why(e)}`;
  }
  const want = ref.commits.filter((c) => c.renamed < at).map((c) => c.renamed);
  if (problem === '' && renames.join() !== want.join()) problem = `the run committed at operations ${renames.join()}, the reference at ${want.join()}`;
  problem = await cut.rebuild(lost, tear, problem, () => checkImage(world, inputs, ref, at, completed), why);
  return { near: ref.near, at, ...tornOf(tear), ...cut.place, ok: problem === '', problem };
}

const why = (e: unknown): string => (isDrumError(e) ? `${e.code} ${e.message}` : String(e));

/** What differs on the rebuilt disk from what docs/content.md promises (see the header), or '' when nothing. */
async function checkImage(world: string, inputs: ContentInputs, ref: ContentRef, at: number, completed: boolean): Promise<string> {
  const state = join(world, 'state');
  const held = storeProblem(state, ref, at);
  if (typeof held === 'string') return held;
  if (completed) {
    const outs = completedOutputsProblem(world, ref);
    if (outs !== '') return outs;
  } else {
    try {
      await contentRun(world, ref.near, inputs.a, 'out-a', null);
    } catch (e) {
      return `the run again (${held} documents committed) failed: ${why(e)}`;
    }
    const want = rerunText(ref, held);
    const got = duplicatesOf(world, 'out-a');
    if (got !== want) return `the run again (${held} documents committed) wrote ${JSON.stringify(got)}, not ${JSON.stringify(want)}`;
  }
  try {
    await contentRun(world, ref.near, inputs.b, 'out-b', null);
  } catch (e) {
    return `B's run failed: ${why(e)}`;
  }
  const b = duplicatesOf(world, 'out-b');
  if (b !== ref.bText) return `B's duplicates differ: ${JSON.stringify(b)} against ${JSON.stringify(ref.bText)}`;
  const v = verifyContent(state);
  return v === null || v.sound ? '' : `verify after B: ${v.problems[0]}`;
}

/** The documents the store holds after the loss (0 without a store), or what is wrong with it. */
function storeProblem(state: string, ref: ContentRef, at: number): number | string {
  const dir = join(state, CONTENT_DIR);
  let m;
  try {
    m = readContentManifest(dir);
  } catch (e) {
    return `the content manifest: ${why(e)}`;
  }
  if (m === null) return ref.commits.some((c) => c.durable < at) ? 'the content store is gone after its first commit was durable' : 0;
  const v = verifyContent(state);
  if (v !== null && !v.sound) return `verify: ${v.problems[0]}`;
  const floor = Math.max(0, ...ref.commits.filter((c) => c.durable < at).map((c) => c.docs));
  const ceiling = Math.max(0, ...ref.commits.filter((c) => c.renamed < at).map((c) => c.docs));
  if (m.docs < floor || m.docs > ceiling) return `${m.docs} documents committed, not between ${floor} and ${ceiling}`;
  if (m.docs % CONTENT_ROUND_DOCS !== 0 && m.docs !== ref.docs.length) return `${m.docs} documents committed: not whole rounds`;
  const log = new DocLog(new DrumFs(), dir, m.docs, m.urlBytes, false);
  try {
    for (let d = 0; d < m.docs; d++) if (log.url(d) !== ref.docs[d]) return `document ${d} is ${log.url(d)}, not ${ref.docs[d]}`;
  } finally {
    log.close();
  }
  return m.docs;
}

/** A run that returned: its duplicates file and report are on the disk, whole. */
function completedOutputsProblem(world: string, ref: ContentRef): string {
  const out = join(world, 'out-a');
  if (!fs.existsSync(join(out, DUPLICATES_FILE))) return `the completed run's ${DUPLICATES_FILE} is gone`;
  if (duplicatesOf(world, 'out-a') !== ref.aText) return `the completed run's ${DUPLICATES_FILE} differs: ${JSON.stringify(duplicatesOf(world, 'out-a'))}`;
  try {
    const r = JSON.parse(fs.readFileSync(join(out, REPORT_FILE), 'utf8')) as ContentReport;
    if (r.documents !== ref.docs.length) return `the completed run's report counts ${r.documents} documents`;
  } catch (e) {
    return `the completed run's report: ${String(e)}`;
  }
  return '';
}

/** The duplicates file of A run again on a store holding A's first `held` documents: those each an exact copy of its earliest copy, the rest as the uninterrupted run. */
export function rerunText(ref: Pick<ContentRef, 'docs' | 'aLines'>, held: number): string {
  const lines: string[] = [];
  ref.docs.forEach((url, i) => {
    const was = ref.aLines.get(url)?.split('\t');
    if (i < held) lines.push(`${url}\texact\t${was?.[1] === 'exact' ? was[2] : url}\t0`);
    else if (was !== undefined) lines.push(was.join('\t'));
  });
  return lines.map((l) => `${l}\n`).join('');
}

/** What a sweep measured: operations tried, trials, the trials that went wrong, seconds, and what the torn rebuilds kept. */
export interface ContentSweep {
  ops: number;
  trials: number;
  bad: ContentOutcome[];
  seconds: number;
  kept: Tear['tally'];
}

/**
 * A power loss before every operation of A's run with `near` stores, and
 * just after it: the kindest rebuild, or `seeds` torn ones per operation
 * (seed number `s` of operation `at`: `seedOf(at, s)`). `onProgress` hears
 * about every 200th operation.
 */
export async function contentSweep(dir: string, near: NearMethod, seeds: number, seedOf: (at: number, s: number) => number, onProgress?: (at: number, bad: number) => void): Promise<ContentSweep> {
  const t0 = Date.now();
  const inputs = writeContentInputs(dir);
  const ref = await contentRef(dir, inputs, near);
  const kept = { files: 0, pagesKept: 0, pagesDropped: 0, namesKept: 0, namesDropped: 0 };
  const bad: ContentOutcome[] = [];
  let trials = 0;
  for (let at = 0; at <= ref.ops; at++) {
    for (let s = 0; s < Math.max(1, seeds); s++) {
      const o = await contentLossAt(dir, inputs, ref, at, seeds === 0 ? undefined : seedOf(at, s));
      trials++;
      for (const k of Object.keys(kept) as (keyof typeof kept)[]) kept[k] += o.tally?.[k] ?? 0;
      if (!o.ok) bad.push(o);
    }
    if (at % 200 === 199) onProgress?.(at + 1, bad.length);
  }
  return { ops: ref.ops, trials, bad, seconds: Math.round((Date.now() - t0) / 1000), kept };
}
