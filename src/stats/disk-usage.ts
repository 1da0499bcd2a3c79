// Disk space a state directory really takes, by part: the store's key and
// values files, the Bloom file, the URL log, the host table, the warm-start
// caches, the run catalog, the default run output directories, the work area
// of a round in progress, and the rest (MANIFEST, the writer lock, leftovers). Sizes are allocated blocks (what `du` counts),
// not file lengths. Reads directory entries and file metadata only; never
// opens a file. Does not follow symlinks. Output directories given with
// --out outside the state directory are not counted.
// REQUIRES: `dir` is a state directory (missing parts count 0).

import * as fs from 'node:fs';
import { join } from 'node:path';

/** Bytes on disk per part of a state directory, and their sum. */
export interface DiskUsage {
  totalBytes: number;
  /** store/: key files, values files, the key journal. */
  store: number;
  /** bloom-*.bloom. */
  bloom: number;
  /** urls/: the URL log, the text of every docID. */
  urls: number;
  /** hosts/: the host table and the round deltas not folded into it yet. */
  hosts: number;
  /** tiers.cache and memo.cache: warm starts for the next process; deletable at any time. */
  caches: number;
  /** catalog/ (LevelDB): run history and the records of the host-count files. */
  catalog: number;
  /** runs/: default output directories of the runs. */
  runs: number;
  /** work/: spill files and aux log of a round in progress. */
  work: number;
  /** MANIFEST, writer-lock/ and anything else. */
  other: number;
}

/** Bytes a file or tree occupies: allocated 512-byte blocks where the OS reports them, else its length. */
function treeBytes(path: string): number {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(path);
  } catch {
    return 0; // removed while we walked (a commit deletes old files): not there any more
  }
  let n = st.blocks !== undefined && st.blocks >= 0 ? st.blocks * 512 : st.size;
  if (st.isDirectory()) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(path);
    } catch {
      names = [];
    }
    for (const name of names) n += treeBytes(join(path, name));
  }
  return n;
}

/** Which part a top-level entry of the state directory belongs to. */
function partOf(name: string): Exclude<keyof DiskUsage, 'totalBytes'> {
  if (name === 'store') return 'store';
  if (name.endsWith('.bloom')) return 'bloom';
  if (name === 'urls') return 'urls';
  if (name === 'hosts') return 'hosts';
  if (name === 'tiers.cache' || name === 'memo.cache' || name === 'verified.cache') return 'caches';
  if (name === 'catalog') return 'catalog';
  if (name === 'runs') return 'runs';
  if (name === 'work') return 'work';
  return 'other';
}

/** Walks the state directory `dir` once and sums each part. */
export function diskUsage(dir: string): DiskUsage {
  const u: DiskUsage = { totalBytes: 0, store: 0, bloom: 0, urls: 0, hosts: 0, caches: 0, catalog: 0, runs: 0, work: 0, other: 0 };
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return u;
  }
  for (const name of names) {
    const n = treeBytes(join(dir, name));
    u[partOf(name)] += n;
    u.totalBytes += n;
  }
  return u;
}
