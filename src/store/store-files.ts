// The files a committed manifest names, as the store's open and commit see
// them: which names it holds (key, values and values delta, Bloom and key journal files), the cheap checks
// of an open (each named file present and of the recorded size; the URL
// log's files at least as long as committed), and the garbage collection of
// a writer's open (files of an interrupted commit, work/). Does not read a
// file's contents (verify.ts does the full checks) or write a manifest
// (store.ts).
// REQUIRES: `dir` is the state directory `body` was read from; collectGarbage
// only under the writer lock.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { DrumError } from '../errors.js';
import type { DrumFs } from '../io/fs.js';
import type { ManifestBody } from './manifest.js';
import { indexPath, segmentPath } from './url-log/url-log-format.js';
import { chainFiles } from './values/value-chain.js';

/** Names (relative to the state directory) of every key, values and Bloom file `body` names. */
export function namedFiles(body: ManifestBody): Set<string> {
  const named = new Set<string>();
  for (const e of body.buckets) {
    if (e) named.add(e.file);
    if (e?.values) for (const f of chainFiles(e.values)) named.add(f.file);
  }
  if (body.bloom) named.add(body.bloom.file);
  if (body.journal) named.add(body.journal.file);
  return named;
}

/** Cheap checks of every named file: present, of the recorded size. Full checks are verify's. */
export function checkFiles(dir: string, body: ManifestBody): void {
  const valueBytes = body.params.valueBytes ?? 0;
  for (let b = 0; b < body.buckets.length; b++) {
    const e = body.buckets[b];
    if (!e) continue;
    const path = join(dir, e.file);
    const size = sizeOf(path);
    if (size !== e.bytes) {
      throw new DrumError('DRUM_CORRUPT_FILE', `${path}: ${size} bytes, manifest says ${e.bytes}`, { file: path });
    }
    if (valueBytes > 0 && e.keys > 0) {
      if (e.values === undefined) throw new DrumError('DRUM_CORRUPT_FILE', `${join(dir, 'MANIFEST')}: bucket ${b} has keys but no values file`, { file: join(dir, 'MANIFEST') });
      for (const f of chainFiles(e.values)) {
        const vp = join(dir, f.file);
        const vs = sizeOf(vp);
        if (vs !== f.bytes) throw new DrumError('DRUM_CORRUPT_FILE', `${vp}: ${vs} bytes, manifest says ${f.bytes}`, { file: vp });
      }
    }
  }
  if (body.bloom !== null) {
    const path = join(dir, body.bloom.file);
    if (!fs.existsSync(path)) throw new DrumError('DRUM_CORRUPT_FILE', `${path}: missing (named by the manifest)`, { file: path });
  }
  // The key journal, like the URL log, may be longer than committed, never shorter.
  if (body.journal !== undefined) atLeast(join(dir, body.journal.file), body.journal.bytes);
  // The URL log's files may be longer than committed (a commit that did not reach its manifest), never shorter.
  const log = body.urlLog;
  if (log !== undefined && log.segments > 0) {
    atLeast(segmentPath(dir, log.segments - 1), log.tailBytes);
    atLeast(indexPath(dir), log.indexBytes);
  }
}

/**
 * Deletes files no manifest names (an interrupted commit's) and empties
 * work/. A directory drum did not make there is left as it is (deleting a
 * directory is never drum's to do, and unlinking one failed every open).
 */
export function collectGarbage(dir: string, body: ManifestBody, dfs: DrumFs): void {
  const named = namedFiles(body);
  for (const f of fileNames(join(dir, 'store'))) {
    if (!named.has(`store/${f}`)) dfs.unlink(join(dir, 'store', f));
  }
  for (const f of safeList(dir)) {
    if ((f.endsWith('.bloom') || f.endsWith('.bloom.tmp') || f === 'MANIFEST.tmp') && !named.has(f)) {
      dfs.unlink(join(dir, f));
    }
  }
  for (const f of fileNames(join(dir, 'work'))) dfs.unlink(join(dir, 'work', f));
  // A fold's own buckets and aux log go to work/fold/ (engine/url-seen/journal-round.ts).
  for (const g of fileNames(join(dir, 'work', 'fold'))) dfs.unlink(join(dir, 'work', 'fold', g));
}

/** The names in `dir` that are not directories, or none when it cannot be listed (absent). */
function fileNames(dir: string): string[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).filter((e) => !e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}

/** The names in `dir`, or none when it cannot be listed (absent). */
export function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** The size of a file the manifest names; DRUM_CORRUPT_FILE when it is missing. */
function sizeOf(path: string): number {
  try {
    return fs.statSync(path).size;
  } catch {
    throw new DrumError('DRUM_CORRUPT_FILE', `${path}: missing (named by the manifest)`, { file: path });
  }
}

/** DRUM_CORRUPT_FILE unless `path` exists and holds at least `bytes` bytes. */
function atLeast(path: string, bytes: number): void {
  const size = sizeOf(path);
  if (size < bytes) throw new DrumError('DRUM_CORRUPT_FILE', `${path}: ${size} bytes, the manifest names ${bytes}`, { file: path });
}
