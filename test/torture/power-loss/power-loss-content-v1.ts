// Power-loss trials of `drum content` on a `drum-content/1` store, shared by
// power-loss-content-v1.test.ts (beside it; a sample) and scripts/torture.ts
// (every operation): a format 1 store holding WARC A's documents
// (content-v1-store.ts) is converted by the next run, here one of WARC B (a
// generated WARC's other records, copies of A's documents among them; the
// inputs of power-loss-content.ts), which then goes on in rounds; power is
// lost before its mutating operation #at, and the disk is rebuilt as
// power-loss.ts leaves it (the kindest loss, or torn from a seed). What
// docs/content.md and docs/file-format.md promise, and is checked here:
// - the store is sound (`verifyContent`) and holds A's documents;
//   it is the format 1 store as it was (the conversion not done) or a
//   format 2 store (done whole: with no round of B after it, its maps are
//   the uninterrupted conversion's), holding at least the documents of
//   every commit whose directory fsync ran and at most those of the last
//   renamed one, B's as a prefix of B's documents;
// - the same command run again completes, its duplicates file lists each
//   committed document of B as an exact copy of its earliest copy and the
//   rest as the uninterrupted run does, and the store it leaves verifies
//   (and holds the uninterrupted run's maps when none of B's documents
//   was committed before the loss: the run again adds them all again).
// A refusal is a failure: none is documented after a power loss.
// Asserts nothing; callers judge `ok`.
// Does not cover the operations after the run's last one (the report's
// steps, power-loss-content.ts covers them for any store).
// REQUIRES: inputs from writeContentInputs, written once.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { CONTENT_DIR, CONTENT_MANIFEST, readContentManifest, type AnyContentManifest, type NearMethod } from '../../../src/content/content-manifest.js';
import { DUPLICATES_FILE, runContent } from '../../../src/content/content-run.js';
import { verifyContent } from '../../../src/content/content-verify.js';
import { DocLog } from '../../../src/content/doc-log.js';
import { isDrumError } from '../../../src/errors.js';
import { DrumFs, type FaultHook, type FsOp } from '../../../src/io/fs.js';
import { isCrash } from '../../helpers/crash.js';
import { writeV1Store } from './content-v1-store.js';
import { CONTENT_ROUND_DOCS, rerunText, type ContentInputs } from './power-loss-content.js';
import { PowerCut, tornOf } from './power-cut.js';
import type { TrialOutcome } from './power-loss-run.js';
import { Tear } from './power-loss-torn.js';

export interface V1Ref {
  near: NearMethod;
  /** The format 1 state directory each world starts from. */
  template: string;
  /** A's documents' URLs (the format 1 store's), B's, and B's duplicates lines by URL. */
  aDocs: string[];
  docs: string[];
  aLines: Map<string, string>;
  /** Mutating operations of B's run. */
  ops: number;
  /** The manifest's commits in B's run: the conversion's, each round's, the run count's. */
  commits: { renamed: number; durable: number; docs: number }[];
  /** `mapsOf` the converted store before any round of B, and after B's run. */
  converted: string;
  after: string;
}

/** What a store holds, as the trials compare it: format, documents, and its maps' files (key counts and CRCs) or tables. */
function mapsOf(m: AnyContentManifest): string {
  const files = (f: { files: ({ keys: number; crc: number; values?: { crc: number } } | null)[] } | undefined): unknown => f?.files.map((e) => (e ? [e.keys, e.crc, e.values?.crc] : null));
  if (m.format === 'drum-content/1') return JSON.stringify([m.format, m.docs, m.exact, m.bands, m.sim]);
  return JSON.stringify([m.format, m.docs, files(m.exact), files(m.bands), m.sim]);
}

function runB(world: string, near: NearMethod, input: string, hook: FaultHook | null, onDoc?: (url: string) => void): Promise<unknown> {
  return runContent({ stateDir: join(world, 'state'), outDir: join(world, 'out-b'), inputs: [input], near, threshold: 3, roundDocs: CONTENT_ROUND_DOCS, fsync: true, faultHook: hook, onDoc });
}

/** The format 1 store of A, and B's run on it never interrupted (its operations and commits traced). */
export async function v1Ref(dir: string, inputs: ContentInputs, near: NearMethod): Promise<V1Ref> {
  const template = join(dir, `v1-${near}`, 'state');
  const aDocs: string[] = [];
  await runContent({ stateDir: join(dir, `v1-a-${near}`), outDir: join(dir, `v1-a-out-${near}`), inputs: [inputs.a], near, threshold: 3, roundDocs: CONTENT_ROUND_DOCS, fsync: false, onDoc: (u) => void aDocs.push(u) });
  await writeV1Store(template, join(dir, `v1-out-${near}`), inputs.a, near, CONTENT_ROUND_DOCS);
  const world = join(dir, `ref-v1-${near}`);
  fs.cpSync(template, join(world, 'state'), { recursive: true });
  const content = join(world, 'state', CONTENT_DIR);
  const commits: V1Ref['commits'] = [];
  let converted = '';
  let ops = 0;
  let renamed = -1;
  const hook = (op: FsOp, path: string): void => {
    if (op === 'rename' && path === join(content, CONTENT_MANIFEST)) renamed = ops;
    if (op === 'fsync' && path === content && renamed >= 0) {
      const m = readContentManifest(content)!;
      if (commits.length === 0) converted = mapsOf(m);
      commits.push({ renamed, durable: ops, docs: m.docs });
      renamed = -1;
    }
    ops++;
  };
  const docs: string[] = [];
  await runB(world, near, inputs.b, hook, (u) => void docs.push(u));
  const text = fs.readFileSync(join(world, 'out-b', DUPLICATES_FILE), 'utf8');
  const aLines = new Map(text.split('\n').filter((l) => l !== '').map((l) => [l.split('\t')[0]!, l]));
  return { near, template, aDocs, docs, aLines, ops, commits, converted, after: mapsOf(readContentManifest(content)!) };
}

export interface V1Outcome extends TrialOutcome {
  near: NearMethod;
}

const why = (e: unknown): string => (isDrumError(e) ? `${e.code} ${e.message}` : String(e));

/** Power lost before B's operation #at (its conversion first); a seed tears the disk. The checks on what that leaves. */
export async function v1LossAt(dir: string, inputs: ContentInputs, ref: V1Ref, at: number, torn?: number): Promise<V1Outcome> {
  const tear = torn === undefined ? null : new Tear(torn);
  const world = join(dir, `w-v1-${ref.near}-${at}`);
  const lost = join(dir, `lost-v1-${ref.near}-${at}`);
  fs.cpSync(ref.template, join(world, 'state'), { recursive: true });
  const cut = new PowerCut(world, at);
  let problem = '';
  try {
    await runB(world, ref.near, inputs.b, cut.hook);
    problem = 'the run ended before the power loss';
  } catch (e) {
    if (!isCrash(e)) problem = `the interrupted run failed otherwise: ${why(e)}`;
  }
  problem = await cut.rebuild(lost, tear, problem, () => checkImage(world, inputs, ref, at), why);
  return { near: ref.near, at, ...tornOf(tear), ...cut.place, ok: problem === '', problem };
}

/** What differs on the rebuilt disk from what the header promises, or '' when nothing. */
async function checkImage(world: string, inputs: ContentInputs, ref: V1Ref, at: number): Promise<string> {
  const state = join(world, 'state');
  const held = heldProblem(state, ref, at);
  if (typeof held === 'string') return held;
  try {
    await runB(world, ref.near, inputs.b, null);
  } catch (e) {
    return `the run again (${held} of B's documents committed) failed: ${why(e)}`;
  }
  const got = fs.readFileSync(join(world, 'out-b', DUPLICATES_FILE), 'utf8');
  const want = rerunText(ref, held);
  if (got !== want) return `the run again (${held} of B's documents committed) wrote ${JSON.stringify(got)}, not ${JSON.stringify(want)}`;
  // B's documents are added again after those committed, so only a store that kept none of them ends as the reference's.
  const after = mapsOf(readContentManifest(join(state, CONTENT_DIR))!);
  if (held === 0 && after !== ref.after) return `the store after the run again: ${after}, not ${ref.after}`;
  const v = verifyContent(state);
  return v !== null && v.sound ? '' : `verify after the run again: ${v?.problems[0] ?? 'no store'}`;
}

/** B's documents the store holds after the loss, or what is wrong with it. */
function heldProblem(state: string, ref: V1Ref, at: number): number | string {
  const dir = join(state, CONTENT_DIR);
  let m: AnyContentManifest | null;
  try {
    m = readContentManifest(dir);
  } catch (e) {
    return `the content manifest: ${why(e)}`;
  }
  if (m === null) return 'the content store is gone';
  const v = verifyContent(state);
  if (v === null || !v.sound) return `verify after the loss: ${v?.problems[0] ?? 'no store'}`;
  const a = ref.aDocs.length;
  if (m.format === 'drum-content/1') {
    if (ref.commits.some((c) => c.durable < at)) return 'the format 1 store is back after its conversion was durable';
    if (m.docs !== a) return `the format 1 store holds ${m.docs} documents, not ${a}`;
  } else {
    const floor = Math.max(a, ...ref.commits.filter((c) => c.durable < at).map((c) => c.docs));
    const ceiling = Math.max(a, ...ref.commits.filter((c) => c.renamed < at).map((c) => c.docs));
    if (m.docs < floor || m.docs > ceiling) return `${m.docs} documents committed, not between ${floor} and ${ceiling}`;
    if (m.docs === a && mapsOf(m) !== ref.converted) return `the conversion is not whole: ${mapsOf(m)}, not ${ref.converted}`;
  }
  const log = new DocLog(new DrumFs(), dir, m.docs, m.urlBytes, false);
  try {
    const want = [...ref.aDocs, ...ref.docs];
    for (let d = 0; d < m.docs; d++) if (log.url(d) !== want[d]) return `document ${d} is ${log.url(d)}, not ${want[d]}`;
  } finally {
    log.close();
  }
  return m.docs - a;
}

/** A power loss before every operation of B's run on the format 1 store: the kindest rebuild, or `seeds` torn ones per operation. */
export async function v1Sweep(dir: string, inputs: ContentInputs, near: NearMethod, seeds: number, seedOf: (at: number, s: number) => number): Promise<{ ops: number; trials: number; bad: V1Outcome[]; seconds: number; kept: Tear['tally'] }> {
  const t0 = Date.now();
  const ref = await v1Ref(dir, inputs, near);
  const kept = { files: 0, pagesKept: 0, pagesDropped: 0, namesKept: 0, namesDropped: 0 };
  const bad: V1Outcome[] = [];
  let trials = 0;
  for (let at = 0; at < ref.ops; at++) {
    for (let s = 0; s < Math.max(1, seeds); s++) {
      const o = await v1LossAt(dir, inputs, ref, at, seeds === 0 ? undefined : seedOf(at, s));
      trials++;
      for (const k of Object.keys(kept) as (keyof typeof kept)[]) kept[k] += o.tally?.[k] ?? 0;
      if (!o.ok) bad.push(o);
    }
  }
  return { ops: ref.ops, trials, bad, seconds: Math.round((Date.now() - t0) / 1000), kept };
}
