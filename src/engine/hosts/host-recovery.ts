// Re-applies the host counts of a run's last committed round when the crash
// fell between that round's manifest rename and its catalog batch: the new
// URLs of that round are exactly the unique-file bytes between the point the
// round started at and the committed point, so they are re-read and counted.
// Idempotent (the catalog refuses a round it already has). Reads only the
// run's own output files; writes only the catalog (and, with `spill`, the
// counter's transient work file, deleted before returning). An output file
// that cannot be read is DRUM_IO naming it; a missing one leaves nothing to
// recover.

import { join } from 'node:path';
import type { Catalog } from '../../catalog/catalog.js';
import { uniqueFileName } from '../../output/unique-writer.js';
import type { RunState } from '../../store/manifest.js';
import { HostCounter } from './host-counter.js';
import { osCode } from '../../errors.js';
import { DrumFs } from '../../io/fs.js';
import type { HostPartsSpill } from './host-parts.js';

const READ_BYTES = 1 << 20;

export async function recoverHostCounts(run: RunState | null, catalog: Catalog | null, spill: HostPartsSpill | null = null): Promise<boolean> {
  if (run === null || catalog === null || run.rounds === 0 || !run.lastRoundFrom) return false;
  if (await catalog.hasRound(run.runId, run.rounds)) return false;
  const hosts = new HostCounter(spill);
  // The run's output files are read through a DrumFs of their own: an OS error is DRUM_IO naming the file.
  const dfs = new DrumFs();
  const from = run.lastRoundFrom;
  const to = run.unique;
  try {
    for (let f = from.file; f <= to.file; f++) {
      const start = f === from.file ? from.bytes : 0;
      const end = f === to.file ? to.bytes : dfs.size(join(run.outDir, uniqueFileName(f)));
      countLines(dfs, join(run.outDir, uniqueFileName(f)), start, end, hosts);
    }
  } catch (e) {
    hosts.discard();
    // The run's outputs were moved or deleted: its host counts cannot be recovered; the store is unaffected.
    if (osCode(e) === 'ENOENT') return false;
    throw e;
  }
  const parts = hosts.take();
  try {
    return await catalog.applyHostCounts(run.runId, run.rounds, parts);
  } finally {
    parts.close();
  }
}

/** Counts every line of a unique file; DRUM_IO naming the file when it cannot be read (a directory, no permission). */
export function countUniqueFile(path: string, hosts: HostCounter): void {
  const dfs = new DrumFs();
  countLines(dfs, path, 0, dfs.size(path), hosts);
}

/** Counts the lines of `path` between the byte offsets; its OS errors are DRUM_IO naming it (DrumFs). */
function countLines(dfs: DrumFs, path: string, start: number, end: number, hosts: HostCounter): void {
  if (end <= start) return;
  const fd = dfs.open(path, 'r');
  try {
    let buf = Buffer.allocUnsafe(READ_BYTES);
    let have = 0;
    let pos = start;
    while (pos < end || have > 0) {
      const n = pos < end ? dfs.read(fd, buf, have, Math.min(buf.length - have, end - pos), pos) : 0;
      pos += n;
      have += n;
      let at = 0;
      for (;;) {
        const nl = buf.indexOf(10, at);
        if (nl < 0 || nl >= have) break;
        if (nl > at) hosts.add(buf, at, nl);
        at = nl + 1;
      }
      buf.copy(buf, 0, at, have);
      have -= at;
      if (n === 0) break;
      if (have === buf.length) {
        const g = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(g, 0, 0, have);
        buf = g;
      }
    }
  } finally {
    dfs.close(fd);
  }
}
