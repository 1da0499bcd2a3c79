// The docID commands: `drum url` prints `docID<TAB>url` for each docID given
// (arguments, or lines of stdin), in input order, from the store's URL log
// (docs/cli.md). A line that is not a docID, or a docID the store never
// assigned, is a counted reject: said on stderr with its line number (the
// first MAX_SHOWN_REJECTS of them) and in the summary, never a failure.
// `drum resolve` prints `docID<TAB>url` for each link of the input, in
// input order (its canonical URL; `-<TAB>url` when the store does not hold
// it), from one batch merge; rejected lines are counted the same way.
// An input that breaks part-way (a cut .gz, a failed read of stdin) has
// its whole lines answered and counted in the summary, then DRUM_INPUT; a
// missing input or a directory on stdin is refused before reading.
// Declares the commands on the program (main.ts calls addDocIdCommands)
// and holds their actions. Reads the store only; does not parse or print
// the engine's errors (main.ts does).
// REQUIRES: a store at the state directory (DRUM_NOT_FOUND otherwise).

import { DrumError, isDrumError } from '../../errors.js';
import { createInterface } from 'node:readline';
import { inputError, inputSize } from '../../input/open.js';
import type { ResolveResult } from '../../engine/jobs/read/resolve.js';
import type { Command } from 'commander';
import type { CliIo } from '../command-io.js';
import { withDrum } from '../engine.js';
import { fmtCount, fmtInt } from '../format.js';
import { drumOptionsFrom, inputsFrom, readOptionsFrom, stateDirFrom, type RawOptions } from '../options.js';
import type { Act } from '../option-groups.js';

/** Rejects shown one by one on stderr; the rest are counted in the summary. */
export const MAX_SHOWN_REJECTS = 20;
/** docIDs looked up per call into the engine. */
const BATCH = 65536;


export function addDocIdCommands(program: Command, io: CliIo, act: Act): void {
  program.command('url').argument('[docids...]', "docIDs; none or '-' reads them from stdin, one per line (the first tab-separated field)")
    .description('print docID<TAB>url for each docID, in input order, from the store\'s URL log')
    .option('--state <dir>', 'state directory (default: $DRUM_STATE or ./drum-state)')
    .option('--quiet', 'no summary line on stderr')
    .addHelpText('after', '\nExamples:\n  drum url 0 1 2\n  seq 0 99 | drum url --state /data/drum\n')
    .action(act((ids: string[], o: RawOptions) => urlCommand(ids, o, io)));

  program.command('resolve').argument('[input]', "a link file (plain, TSV, .gz, WARC); none or '-' reads stdin")
    .description('print docID<TAB>url for each link, in input order (-<TAB>url when not stored), by one batch merge with the store')
    .option('--state <dir>', 'state directory (default: $DRUM_STATE or ./drum-state)')
    .option('--format <fmt>', 'input format: auto|lines|tsv|warc (auto detects gzip, WARC and TSV)')
    .option('--memory <size>', 'RAM budget (default 256MiB)')
    .option('--quiet', 'no summary line on stderr')
    .option('--verbose', 'also print the merges and the bytes they read against the store\'s size on stderr')
    .addHelpText('after', '\nExamples:\n  drum resolve links.txt > docids.tsv\n  drum resolve links.txt | drum url - | head   # round trip\n')
    .action(act((input: string | undefined, o: RawOptions) => resolveCommand(input, o, io)));
}

export async function resolveCommand(input: string | undefined, raw: RawOptions, io: CliIo): Promise<number> {
  const state = stateDirFrom(raw, io.env, io.cwd);
  const opts = drumOptionsFrom({ memory: raw.memory }, { readOnly: true, cwd: io.cwd });
  const req = { inputs: inputsFrom(input === undefined ? [] : [input], io.cwd), ...readOptionsFrom(raw) };
  const t: Tally = { read: 0, printed: 0, rejected: 0 };
  let notStored = 0;
  let out = '';
  let reading = false;
  let r: ResolveResult | null = null;
  let broken: DrumError | null = null;
  try {
    r = await withDrum(state, { ...opts, workers: 0 }, async (d) => {
      // A missing input (or a directory on stdin) is refused before anything is answered, as check refuses it.
      for (const f of req.inputs) await inputSize(f);
      reading = true;
      return d.resolve({
        ...req,
        onResolved: (doc, url) => {
          if (doc === null) notStored++;
          else t.printed++;
          out += `${doc === null ? '-' : doc}\t${url}\n`;
          if (out.length >= 65536) {
            io.stdout.write(out);
            out = '';
          }
        },
        onReject: (x) => reject(io, t, x.line, x.reason, x.excerpt.toString('latin1'), 'resolve'),
      });
    });
  } catch (e) {
    // A damaged input (a cut .gz): its whole lines were answered; the summary counts them before the error.
    if (!reading || !isDrumError(e, 'DRUM_INPUT')) throw e;
    broken = e;
  } finally {
    if (out !== '') io.stdout.write(out);
  }
  if (t.rejected > MAX_SHOWN_REJECTS) io.stderr.write(`drum: resolve: ${fmtInt(t.rejected - MAX_SHOWN_REJECTS)} more rejects not shown\n`);
  if (!raw.quiet) {
    const read = t.printed + notStored + t.rejected;
    io.stderr.write(`drum: resolve: ${fmtCount(read, 'link')} read, ${fmtInt(t.printed)} stored, ${fmtInt(notStored)} not stored, ${fmtInt(t.rejected)} rejected\n`);
    if (raw.verbose && r !== null) io.stderr.write(`drum: resolve: ${fmtInt(r.merges)} merges read ${fmtInt(r.bytesRead)} bytes; the store's key and values files hold ${fmtInt(r.storeBytes)} bytes\n`);
  }
  if (broken !== null) throw broken;
  return 0;
}

/** A docID field: decimal digits (surrounding spaces allowed) up to 2^53 - 1; NaN otherwise. */
export function parseDocId(s: string): number {
  const t = s.trim();
  if (!/^\d{1,16}$/.test(t)) return NaN;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : NaN;
}

interface Tally {
  read: number;
  printed: number;
  rejected: number;
}

/** Says a reject on stderr (the first few) and counts it. */
function reject(io: CliIo, t: Tally, line: number, reason: string, text: string, cmd = 'url'): void {
  t.rejected++;
  if (t.rejected <= MAX_SHOWN_REJECTS) io.stderr.write(`drum: ${cmd}: line ${line}: ${reason}: ${JSON.stringify(text.slice(0, 200))}\n`);
}

export async function urlCommand(ids: string[], raw: RawOptions, io: CliIo): Promise<number> {
  if (ids.length > 1 && ids.includes('-')) throw new DrumError('DRUM_BAD_OPTION', "drum url reads docIDs from its arguments or from stdin ('-' alone), not both");
  const state = stateDirFrom(raw, io.env, io.cwd);
  const t: Tally = { read: 0, printed: 0, rejected: 0 };
  let broken: DrumError | null = null;
  await withDrum(state, { readOnly: true, workers: 0 }, async (d) => {
    let batch: { line: number; text: string; id: number }[] = [];
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const urls = await d.urls(batch.map((b) => b.id));
      let out = '';
      batch.forEach((b, i) => {
        const u = urls[i];
        if (Number.isNaN(b.id)) reject(io, t, b.line, 'not-a-docid', b.text);
        else if (u === null || u === undefined) reject(io, t, b.line, 'unknown-docid', b.text);
        else {
          out += `${b.id}\t${u}\n`;
          t.printed++;
        }
      });
      if (out !== '') io.stdout.write(out);
      batch = [];
    };
    const take = async (text: string, line: number): Promise<void> => {
      const field = text.split('\t', 1)[0]!;
      if (field.trim() === '' && text.trim() === '') return; // blank line
      t.read++;
      // Rejects wait in the batch too, so stderr says them in line order.
      batch.push({ line, text, id: parseDocId(field) });
      if (batch.length >= BATCH) await flush();
    };
    if (ids.length === 0 || (ids.length === 1 && ids[0] === '-')) {
      // The process's stdin being a directory reads as empty: refused before reading, as check refuses it.
      if (io.stdin === undefined) await inputSize('-');
      broken = await readLines(io.stdin ?? process.stdin, take);
    } else for (let i = 0; i < ids.length; i++) await take(ids[i]!, i + 1);
    await flush();
  });
  if (t.rejected > MAX_SHOWN_REJECTS) io.stderr.write(`drum: url: ${fmtInt(t.rejected - MAX_SHOWN_REJECTS)} more rejects not shown\n`);
  if (!raw.quiet) io.stderr.write(`drum: url: ${fmtInt(t.read)} docIDs read, ${fmtInt(t.printed)} printed, ${fmtInt(t.rejected)} rejected\n`);
  if (broken !== null) throw broken;
  return 0;
}

/**
 * Hands each line of `input` to `take`; a read error (a failed read, a
 * broken pipe) ends the lines and is returned as DRUM_INPUT, so the lines
 * before it are answered and counted first. An error of `take` is thrown.
 */
async function readLines(input: NodeJS.ReadableStream, take: (text: string, line: number) => Promise<void>): Promise<DrumError | null> {
  let failed: { e: unknown } | null = null;
  const onError = (e: unknown): void => void (failed ??= { e });
  input.on('error', onError);
  try {
    let line = 0;
    for await (const text of createInterface({ input, crlfDelay: Infinity })) await take(text, ++line);
  } catch (e) {
    if (failed === null) throw e;
  } finally {
    input.removeListener('error', onError);
  }
  return failed === null ? null : inputError('-', 'cannot read input', (failed as { e: unknown }).e);
}
