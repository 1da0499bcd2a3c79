// `drum content`: duplicate and near-duplicate documents of WARC inputs
// against the content store of the state directory (docs/content.md).
// Declares the command and its options, resolves them, runs the job
// (src/content/content-run.ts, loaded only when the command runs), prints
// a short summary on stderr (or the report as JSON on stdout), and writes
// the suggested URL rules when asked; after a signal, one line on what the
// store kept. Does not read argv itself.
// REQUIRES: main.ts's program and its act wrapper.

import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { DrumError, EXIT_STATUS } from '../../errors.js';
import { inputErrorStatus, type CliIo } from '../command-io.js';
import { inputsFrom, outDirFrom, parseCount, stateDirFrom } from '../options.js';
import { fmtCount, fmtInt } from '../format.js';
import type { Act } from '../option-groups.js';
import { why, type StopReason } from '../run-notes.js';
import type { ContentAsked, NearMethod } from '../../content/content-manifest.js';

export interface ContentRawOptions {
  state?: string;
  out?: string;
  near?: string;
  threshold?: string;
  minJaccard?: string;
  roundDocs?: string;
  fsync?: boolean;
  json?: boolean;
  quiet?: boolean;
  suggestRules?: string;
  minSupport?: string;
  verify?: boolean;
}


export function addContent(program: Command, io: CliIo, act: Act, examples: (lines: string[]) => string): void {
  program.command('content').argument('[inputs...]', "WARC files (.warc, .warc.gz); none or '-' reads stdin")
    .description('find documents seen before (exact payload or near-identical text) in WARC files; writes content-duplicates.tsv and content-report.json')
    .option('--state <dir>', 'state directory (default: $DRUM_STATE or ./drum-state); the content store is <state>/content/')
    .option('--out <dir>', 'output directory (default: <state>/content-runs/run-<n>/)')
    .option('--near <method>', 'near-duplicate method: minhash (MinHash-LSH, default) or simhash (SimHash, Hamming distance <= --threshold); fixed when the content store is created')
    .option('--min-jaccard <j>', 'minhash: a near copy has an estimated Jaccard similarity of at least j, 0.01..1 (default 0.5; any run may choose)')
    .option('--threshold <k>', 'simhash: Hamming distance for near duplicates, 0..3; fixed when the content store is created (default 3)')
    .option('--round-docs <n>', 'documents per merge round (default 65536)')
    .option('--suggest-rules <file>', 'write URL rules learned from exact duplicates of one host (drum ingest --rules format)')
    .option('--min-support <n>', 'with --suggest-rules: pairs a rule needs (default 2)')
    .option('--verify', 'read every content table and the document log, check CRCs, order and lengths; exit 0 when sound (reads no input)')
    .option('--json', 'print the report as one JSON object on stdout')
    .option('--quiet', 'print nothing on success but what --json asks for')
    .option('--no-fsync', 'skip fsync at commits: faster, NOT crash-safe (benchmarks, tests)')
    .addHelpText('after', examples([
      'drum content crawl-*.warc.gz',
      'drum content --out dups/ --suggest-rules rules.txt crawl.warc.gz && drum ingest --rules rules.txt links.txt',
    ]))
    .action(act((inputs: string[], o: ContentRawOptions) => contentCommand(inputs, o, io)));
}

export async function contentCommand(inputs: string[], o: ContentRawOptions, io: CliIo): Promise<number> {
  const stateDir = stateDirFrom(o, io.env, io.cwd);
  if (o.verify) return verifyCommand(stateDir, o, io);
  const threshold = o.threshold === undefined ? 3 : parseCount('--threshold', o.threshold, 0, 3);
  if (o.near !== undefined && o.near !== 'minhash' && o.near !== 'simhash') throw new DrumError('DRUM_BAD_OPTION', `--near must be minhash or simhash, not '${o.near}'`);
  const minJaccard = o.minJaccard === undefined ? 0.5 : Number(o.minJaccard);
  if (!(o.minJaccard === undefined || (/^\s*[0-9.]+\s*$/.test(o.minJaccard) && minJaccard >= 0.01 && minJaccard <= 1))) {
    throw new DrumError('DRUM_BAD_OPTION', `--min-jaccard must be a number from 0.01 to 1, not '${o.minJaccard}'`);
  }
  const roundDocs = o.roundDocs === undefined ? 65536 : parseCount('--round-docs', o.roundDocs, 1, 1 << 24);
  const minSupport = o.minSupport === undefined ? 2 : parseCount('--min-support', o.minSupport, 1);
  const files = inputsFrom(inputs, io.cwd);
  const { runContent } = await import('../../content/content-run.js');
  const { RuleMiner, writeSuggestedRules } = await import('../../content/rule-suggest.js');
  const { readContentManifest, CONTENT_DIR, CONTENT_RUNS_DIR } = await import('../../content/content-manifest.js');
  const { runNo, asked } = await storeAsked(o, stateDir, threshold, minJaccard);
  const outDir = outDirFrom(o.out, 'content', io.cwd) ?? join(stateDir, CONTENT_RUNS_DIR, `run-${runNo}`);
  if (o.suggestRules !== undefined && o.suggestRules.trim() === '') throw new DrumError('DRUM_BAD_OPTION', '--suggest-rules needs a file');
  const miner = o.suggestRules !== undefined ? new RuleMiner() : null;
  // A signal stops the run at once: say what the store kept and what running it again does (also under --quiet).
  const off = io.onStop?.((reason) => io.stderr.write(stopLine(reason, () => readContentManifest(join(stateDir, CONTENT_DIR))?.docs ?? 0)));
  let report;
  try {
    report = await runContent({
      stateDir, outDir, inputs: files, near: o.near as 'minhash' | 'simhash' | undefined, threshold, minJaccard, asked, roundDocs, fsync: o.fsync !== false,
      onExact: miner ? (url, rep) => miner.pair(url, rep) : undefined,
      onDoc: miner ? (url, key) => miner.doc(url, key) : undefined,
      onNotice: (m) => void (o.quiet ? undefined : io.stderr.write(`drum content: ${m}\n`)),
    });
  } finally {
    off?.();
  }
  let rules = 0;
  if (miner !== null) rules = writeSuggestedRules(resolve(io.cwd, o.suggestRules!), miner.suggest(minSupport), { fsync: o.fsync !== false });
  if (o.json) io.stdout.write(JSON.stringify(report) + '\n');
  else if (!o.quiet) {
    io.stderr.write(
      `content: ${fmtInt(report.documents)} documents, ${fmtInt(report.exactDuplicates)} exact and ${fmtInt(report.nearDuplicates)} near duplicates ` +
      `in ${fmtCount(report.clusters, 'cluster')} (${fmtInt(report.storeDocuments)} in the store) in ${(report.timeMs / 1000).toFixed(1)} s` +
      `${report.payloadDigest.mismatch > 0 ? `; ${fmtInt(report.payloadDigest.mismatch)} declared payload digests were wrong` : ''}` +
      // An input that broke part-way, as the report's inputErrors has it: its whole records before the break were read.
      `${report.inputErrors.length > 0 ? `; ${fmtCount(report.inputErrors.length, 'damaged input')} read only up to the damage` : ''}` +
      `${miner !== null ? `; ${rules} suggested rules in ${o.suggestRules}` : ''}\n  -> ${outDir}\n`,
    );
  }
  if (report.documents === 0 && report.malformedRecords > 0 && !o.quiet) {
    io.stderr.write(`drum content: warning: ${fmtInt(report.malformedRecords)} malformed records and no document: are the inputs WARC files?\n`);
  }
  return inputErrorStatus(report.inputErrors, io);
}

/** The line after a signal stopped a run: the documents its committed rounds left in the store, and what running it again does. */
function stopLine(reason: StopReason, committedDocs: () => number): string {
  let kept = 'the rounds committed before it';
  try {
    kept = `the ${fmtCount(committedDocs(), 'document')} of ${kept}`;
  } catch {
    // an unreadable manifest: say what is known
  }
  return `drum content: ${why(reason)}: the content store keeps ${kept}; the same command run again goes on, ` +
    'listing those documents as exact duplicates of themselves (docs/content.md)\n';
}

/**
 * The next run's number in the content store of stateDir (1 for a new one), and the near options given
 * (null: not given), which an existing store's open checks under the lock against what it was created
 * with (DRUM_POLICY_MISMATCH). Refuses first the options that contradict each other (refuseNearConflicts).
 */
async function storeAsked(o: ContentRawOptions, stateDir: string, threshold: number, minJaccard: number): Promise<{ runNo: number; asked: ContentAsked }> {
  const { readContentManifest, CONTENT_DIR } = await import('../../content/content-manifest.js');
  let runNo = 1;
  // A content store is there (a damaged manifest too: the store's open reports it).
  let found = true;
  try {
    const m = readContentManifest(join(stateDir, CONTENT_DIR));
    runNo = (m?.runs ?? 0) + 1;
    found = m !== null;
  } catch {
    // a damaged manifest is reported by the store's open
  }
  refuseNearConflicts(o, found);
  const near = o.near === undefined ? null : (o.near as NearMethod);
  return { runNo, asked: { near, threshold: o.threshold === undefined ? null : threshold, minJaccard: o.minJaccard === undefined ? null : minJaccard } };
}

/**
 * Near options that contradict each other whatever a store holds: a threshold of the other method than
 * --near asks for (--threshold is SimHash's, --min-jaccard MinHash's), or --threshold for a new store,
 * which finds near copies with MinHash unless --near simhash: DRUM_BAD_OPTION, before the state is touched.
 * Options other than an existing store was created with are its open's to refuse (DRUM_POLICY_MISMATCH,
 * checkContentAsked in src/content/content-manifest.ts).
 */
function refuseNearConflicts(o: ContentRawOptions, storeFound: boolean): void {
  const near = o.near ?? (storeFound ? null : 'minhash');
  if (near === 'minhash' && o.threshold !== undefined) {
    const which = o.near === undefined ? 'a new content store finds near copies with MinHash (--min-jaccard) unless --near simhash' : '--near minhash takes --min-jaccard';
    throw new DrumError('DRUM_BAD_OPTION', `--threshold is the SimHash threshold; ${which}`);
  }
  if (near === 'simhash' && o.minJaccard !== undefined) throw new DrumError('DRUM_BAD_OPTION', '--min-jaccard is the MinHash threshold; --near simhash takes --threshold');
}

async function verifyCommand(stateDir: string, o: ContentRawOptions, io: CliIo): Promise<number> {
  const { verifyContent } = await import('../../content/content-verify.js');
  const v = verifyContent(stateDir);
  if (v === null) throw new DrumError('DRUM_NOT_FOUND', `no content store in ${stateDir}`);
  if (o.json) io.stdout.write(JSON.stringify(v) + '\n');
  else if (!o.quiet || !v.sound) {
    const { formatContentVerify } = await import('../content-summary.js');
    io.stdout.write(formatContentVerify(v));
  }
  return v.sound ? 0 : EXIT_STATUS.DRUM_CORRUPT_FILE;
}
