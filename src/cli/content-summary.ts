// What `drum stats` and `drum verify` say about the content store of a
// state directory (`<state>/content/`, made by `drum content`), beside the
// URL store: its documents, runs, near method and bytes; and its verify
// result (every map's bucket files and table's CRC and order, the logs,
// the signatures' CRC).
// A state directory may hold either store or both. Does not open the URL
// store (commands.ts does) or write the content store.
// REQUIRES: nothing; reads only.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { CONTENT_DIR, nearMethodOf, readContentManifest } from '../content/content-manifest.js';
import { type ContentVerifyResult, verifyContent } from '../content/content-verify.js';
import { DrumError } from '../errors.js';
import { fmtCount, fmtInt } from './format.js';

export interface ContentSummary {
  documents: number;
  runs: number;
  near: string;
  files: number;
  bytes: number;
}

/** The content store's summary, or null when the state directory has none (a damaged manifest throws DRUM_CORRUPT_FILE). */
export function contentSummary(stateDir: string): ContentSummary | null {
  const dir = join(stateDir, CONTENT_DIR);
  const m = readContentManifest(dir);
  if (m === null) return null;
  const c = { files: 0, bytes: 0 };
  countFiles(dir, c);
  return { documents: m.docs, runs: m.runs, near: nearMethodOf(m), files: c.files, bytes: c.bytes };
}

/** Adds the files under dir (its subdirectories too: the maps' buckets, the work files) and their bytes to c. */
function countFiles(dir: string, c: { files: number; bytes: number }): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) countFiles(join(dir, e.name), c);
    else {
      c.files++;
      c.bytes += fs.statSync(join(dir, e.name)).size;
    }
  }
}

export function formatContentSummary(c: ContentSummary): string {
  return `\ncontent store (drum content)\n  ${fmtCount(c.documents, 'document')} from ${fmtCount(c.runs, 'run')}, near copies by ${c.near}; ${fmtCount(c.files, 'file')}, ${(c.bytes / 1048576).toFixed(2)} MiB\n`;
}

/** The content store's verify result, or null when there is none. */
export function contentVerify(stateDir: string): ContentVerifyResult | null {
  return verifyContent(stateDir);
}

export function formatContentVerify(v: ContentVerifyResult): string {
  return v.sound
    ? `content store sound: ${fmtInt(v.docs)} documents, ${v.tables} tables\n`
    : `content store NOT SOUND:\n${v.problems.map((p) => `  ${p}`).join('\n')}\n`;
}

/** Runs fn on the URL store; when there is none but a content store is there, null instead of DRUM_NOT_FOUND. */
export async function urlStoreOrNull<T>(hasContent: boolean, fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (e) {
    if (hasContent && e instanceof DrumError && e.code === 'DRUM_NOT_FOUND') return null;
    throw e;
  }
}
