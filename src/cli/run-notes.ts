// What `drum ingest` says on stderr about runs beyond its report: the
// unfinished run a new run abandoned (which run, how many new URLs it had
// committed, where they are), the earlier part of a resumed run whose URLs
// went to stdout, and the one line after a stop (SIGINT, SIGTERM, stdout
// closed) naming what was committed and how to resume; and `--out -`'s
// copy of each committed round's new URLs from the run's unique files to
// stdout. Does not decide anything about runs (the engine does).
// REQUIRES: the unique files named by a committed round are synced (the
// engine calls onCommit after the manifest rename).

import * as fs from 'node:fs';
import { join } from 'node:path';
import type { AbandonedRun, CommittedRound, RunStart } from '../engine/api.js';
import { uniqueFileName } from '../output/unique-writer.js';
import { readManifest } from '../store/manifest.js';
import type { OutStream } from './command-io.js';
import { fmtCount } from './format.js';

export type StopReason = 'SIGINT' | 'SIGTERM' | 'EPIPE';

function urls(n: number): string {
  return fmtCount(n, 'new URL');
}

/** One line: the run that was abandoned and where its committed URLs are. */
export function abandonedLine(a: AbandonedRun): string {
  const inputs = a.inputs.map((p) => (p === '-' ? 'stdin' : p)).join(' ');
  return `drum: abandoned the unfinished run ${a.runId} (${inputs}): its ${urls(a.committedUrls)} committed before it stopped are in ${join(a.outDir, 'unique-*.txt')} (drum runs lists it)\n`;
}

/** One line for a resumed run whose new URLs go to stdout: the ones committed before are not printed again. */
export function resumedLine(r: RunStart): string {
  return `drum: resuming run ${r.runId}: its ${urls(r.committedUrls)} committed before the interruption are in ${join(r.outDir, 'unique-*.txt')}; stdout gets the ones committed from now on\n`;
}

/** What stopped a command, as its line after the stop says it. */
export function why(reason: StopReason): string {
  return reason === 'EPIPE' ? 'stdout was closed' : `stopped by ${reason}`;
}

/** The line after a stop: what the run committed (read from the manifest) and how to go on. */
export function stopLine(reason: StopReason, state: string, started: RunStart | null): string {
  let run = null;
  try {
    run = readManifest(state)?.run ?? null;
  } catch {
    // an unreadable manifest: say what is known
  }
  if (started === null || run === null || run.runId !== started.runId) return `drum: ${why(reason)} before the run was recorded; nothing was committed\n`;
  const n = run.counters.uniqueUrls ?? 0;
  const where = join(run.outDir, 'unique-*.txt');
  if (run.status === 'complete') return `drum: ${why(reason)} after run ${run.runId} completed: ${urls(n)} in ${where}\n`;
  const next = run.inputs.some((i) => i.path === '-')
    ? 'a stdin run cannot resume: the next ingest abandons it and says where its URLs are'
    : 'run the same command again to resume it';
  return `drum: ${why(reason)}: run ${run.runId} committed ${urls(n)} in ${where}; ${next}\n`;
}

const COPY_BYTES = 1 << 20;

/** Copies a committed round's new URLs (bytes [from, to) of the unique files, in name order) to `out`. */
export async function printRound(c: CommittedRound, out: OutStream & { once?: (ev: 'drain', fn: () => void) => unknown }): Promise<void> {
  for (let f = c.from.file; f <= c.to.file; f++) {
    const path = join(c.outDir, uniqueFileName(f));
    if (!fs.existsSync(path)) continue; // a round that ended exactly at a rotation
    const end = f === c.to.file ? c.to.bytes : fs.statSync(path).size;
    let pos = f === c.from.file ? c.from.bytes : 0;
    const fd = fs.openSync(path, 'r');
    try {
      while (pos < end) {
        const buf = Buffer.allocUnsafe(Math.min(COPY_BYTES, end - pos));
        const n = fs.readSync(fd, buf, 0, buf.length, pos);
        if (n === 0) break;
        pos += n;
        if (out.write(buf.subarray(0, n)) === false && typeof out.once === 'function') await new Promise<void>((r) => out.once!('drain', r));
      }
    } finally {
      fs.closeSync(fd);
    }
  }
}
