// Full verification of a committed store: every key file named by the
// manifest is read end to end — header, length, every block CRC, strictly
// ascending keys, every key in its own bucket — and the Bloom file is
// checked. In a store with values, every values file is read end to end
// too, through its deltas — header, the key file's count and the store's
// width, exact length, every block CRC, ascending delta positions — and a
// bucket with keys but no values file is a problem.
// verifyBucketFiles does the same for any set of bucket files (the content
// store's maps, with a check of their values). Collects problems instead of
// stopping at the first. Reads only.

import { join } from 'node:path';
import { isDrumError } from '../errors.js';
import type { DrumFs } from '../io/fs.js';
import { KeyReader, READ_BUFFER_BYTES } from './keys/key-reader.js';
import type { BucketEntry, ManifestBody } from './manifest.js';
import type { ValueSource } from './values/value-io.js';
import { chainFiles, openValueChain } from './values/value-chain.js';

export interface VerifyProblem {
  file: string;
  code: string;
  message: string;
}

export interface StoreVerifyResult {
  ok: boolean;
  filesChecked: number;
  keysChecked: number;
  problems: VerifyProblem[];
}

/** `skip`: key files known good (verified or written by this process since); they are not read again. */
export function verifyKeyFiles(dfs: DrumFs, dir: string, body: ManifestBody, skip?: ReadonlySet<string>): StoreVerifyResult {
  const r = verifyBucketFiles(dfs, dir, body.buckets, { buckets: body.params.buckets, valueBytes: body.params.valueBytes ?? 0, skip });
  // The Bloom file's content is checked by its reader (src/tiers/bloom-file.ts); a missing one is corruption, like a key file.
  if (body.bloom !== null) {
    try {
      dfs.size(join(dir, body.bloom.file)); // a pinned file counts as present, even if a writer has since deleted it
    } catch {
      r.problems.push({ file: join(dir, body.bloom.file), code: 'DRUM_CORRUPT_FILE', message: 'missing (named by the manifest)' });
    }
  }
  return { ...r, ok: r.problems.length === 0 };
}

/** How verifyBucketFiles reads a set of bucket files. */
export interface BucketCheck {
  /** Buckets (a power of two: a key's bucket is its top bits). */
  buckets: number;
  /** Bytes of each key's value (0: keys only, no values files). */
  valueBytes: number;
  /** Key files known good: not read again. */
  skip?: ReadonlySet<string>;
  /** Checks a block of values (valueBytes / 4 words each); a string names what is wrong. */
  values?: (vals: Uint32Array, n: number) => string | null;
}

/** Reads every bucket's key file (and values file) of `buckets` whole: see the header. Names are relative to `dir`. */
export function verifyBucketFiles(dfs: DrumFs, dir: string, buckets: readonly (BucketEntry | null)[], c: BucketCheck): StoreVerifyResult {
  const problems: VerifyProblem[] = [];
  let filesChecked = 0;
  let keysChecked = 0;
  const shift = 32 - Math.log2(c.buckets);
  const skip = c.skip;
  let buffer: Uint8Array | null = null; // one read buffer for every file read, made at the first
  for (let b = 0; b < buckets.length; b++) {
    const e = buckets[b];
    if (!e || skip?.has(e.file)) continue;
    const path = join(dir, e.file);
    filesChecked++;
    let reader: KeyReader | null = null;
    try {
      let size: number;
      try {
        size = dfs.size(path);
      } catch {
        problems.push({ file: path, code: 'DRUM_CORRUPT_FILE', message: 'missing (named by the manifest)' });
        continue;
      }
      buffer ??= new Uint8Array(READ_BUFFER_BYTES);
      reader = KeyReader.open(dfs, path, { bucket: b, keys: e.keys }, size, buffer);
      let ph = -1;
      let pl = -1;
      let bad: string | null = null;
      while (bad === null && reader.nextBlock()) {
        const k = reader.keys;
        for (let i = 0; i < reader.n; i++) {
          const h = k[2 * i]!;
          const l = k[2 * i + 1]!;
          if (h < ph || (h === ph && l <= pl)) {
            bad = `keys out of order at key ${keysChecked + i}`;
            break;
          }
          if (shift < 32 && h >>> shift !== b) {
            bad = `key ${keysChecked + i} belongs to bucket ${h >>> shift}, not ${b}`;
            break;
          }
          ph = h;
          pl = l;
        }
        keysChecked += reader.n;
      }
      if (bad !== null) problems.push({ file: path, code: 'DRUM_CORRUPT_FILE', message: bad });
    } catch (err) {
      if (isDrumError(err)) problems.push({ file: err.file ?? path, code: err.code, message: err.message });
      else throw err;
    } finally {
      reader?.close();
    }
    const vb = c.valueBytes;
    // A bucket file left with no keys (all deleted, or a delete that found none) needs no values file.
    if (vb > 0 && (e.keys > 0 || e.values !== undefined)) {
      filesChecked += verifyValues(dfs, dir, b, e, vb, problems, c.values);
    }
  }
  return { ok: problems.length === 0, filesChecked, keysChecked, problems };
}

/** Checks bucket b's values file and its deltas (see the header; `check` sees every block); returns the files it checked. */
function verifyValues(
  dfs: DrumFs, dir: string, b: number, e: BucketEntry, valueBytes: number, problems: VerifyProblem[], check?: BucketCheck['values'],
): number {
  if (e.values === undefined) {
    problems.push({ file: join(dir, e.file), code: 'DRUM_CORRUPT_FILE', message: `bucket ${b} has keys but the manifest names no values file` });
    return 0;
  }
  const files = chainFiles(e.values);
  const sizes = new Map<string, number>();
  for (const f of files) {
    try {
      sizes.set(f.file, dfs.size(join(dir, f.file)));
    } catch {
      problems.push({ file: join(dir, f.file), code: 'DRUM_CORRUPT_FILE', message: 'missing (named by the manifest)' });
      return files.length;
    }
  }
  const path = join(dir, e.values.file);
  let r: ValueSource | null = null;
  try {
    r = openValueChain(dfs, dir, b, e, valueBytes, (f) => sizes.get(f)!);
    let bad: string | null = null;
    r.forEachBlock((vals, n) => {
      if (bad === null && check !== undefined) bad = check(vals, n);
    });
    if (bad !== null) problems.push({ file: path, code: 'DRUM_CORRUPT_FILE', message: bad });
  } catch (err) {
    if (isDrumError(err)) problems.push({ file: err.file ?? path, code: err.code, message: err.message });
    else throw err;
  } finally {
    r?.close();
  }
  return files.length;
}
