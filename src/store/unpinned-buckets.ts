// A read-only store whose bucket files could not all be pinned (the process
// ran out of descriptors: readPinned in store-open.ts) reads them by name,
// and a writer's commit may delete them first. Then the bucket is read from
// the files the newest manifest names instead: its entry in the reader's
// manifest body is replaced by the newest one, key file and values
// together. Every answer stays one the store gave at some commit since the
// reader opened (a URL stored then is stored later, unless forgotten; a
// docID never changes), so none is wrong, but a bucket may answer from a
// later commit than the one the reader opened on.
// Does not pin the newest files (they are read by name like the rest) and
// does not touch the key journal or the Bloom file (pinned at open).
// REQUIRES: only the reader's own thread reads the body; a bucket's keys
// and values read in one round come from one entry (Store.openValues refuses
// to follow once the keys were read: the round reads the bucket again).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DrumError, osCode } from '../errors.js';
import { readManifest, type BucketEntry, type ManifestBody } from './manifest.js';
import { chainFiles } from './values/value-chain.js';

/** Tries per bucket and open before a file that keeps vanishing is reported as it is. */
const MAX_FOLLOWS = 20;

export class UnpinnedBuckets {
  /** Times a bucket's values were found replaced after its keys were read (Store.valuesReplaced). */
  valuesReplacedCount = 0;

  /** `body`: the reader's manifest body, whose bucket entries this replaces. */
  constructor(private readonly dir: string, private readonly body: ManifestBody) {}

  /**
   * After `err` opening a file of bucket b (the `tries`-th time in a row):
   * when a file is missing and the newest manifest names other files for
   * bucket b, makes that entry bucket b's and returns true (open it again).
   * False when the error is anything else, or the newest manifest names the
   * same files (missing for good: damage, reported as it is).
   */
  follow(b: number, err: unknown, tries: number): boolean {
    if (tries >= MAX_FOLLOWS || osCode(err) !== 'ENOENT') return false;
    const newest = this.newest();
    if (newest === null) return false;
    const e = newest.buckets[b] ?? null;
    if (sameFiles(e, this.body.buckets[b] ?? null)) return false;
    this.body.buckets[b] = e;
    return true;
  }

  /**
   * The error for values found replaced after the bucket's keys were read
   * (follow() has taken the newest entry). Every other bucket a commit took
   * away is followed too, so the round read again meets none of them.
   */
  valuesReplaced(b: number, err: unknown): DrumError {
    this.valuesReplacedCount++;
    this.followAll();
    return new DrumError('DRUM_IO', `bucket ${b}'s values were replaced by a writer's commit after this reader read its keys; read the bucket again`, { cause: err });
  }

  /** Takes the newest manifest's entry of every bucket one of whose files is missing; true when any was taken. */
  followAll(): boolean {
    const newest = this.newest();
    if (newest === null) return false;
    let any = false;
    for (let b = 0; b < this.body.buckets.length; b++) {
      const e = this.body.buckets[b] ?? null;
      if (e === null || files(e).every((f) => existsSync(join(this.dir, f)))) continue;
      const n = newest.buckets[b] ?? null;
      if (sameFiles(n, e)) continue;
      this.body.buckets[b] = n;
      any = true;
    }
    return any;
  }

  /** The newest manifest, or null when it has other parameters (an upgrade gave a keys-only store values). */
  private newest(): ManifestBody | null {
    const m = readManifest(this.dir);
    if (m === null || JSON.stringify(m.params) !== JSON.stringify(this.body.params) || m.buckets.length !== this.body.buckets.length) return null;
    return m;
  }
}

/** The files of a bucket entry: key file, values file, values deltas. */
function files(e: BucketEntry): string[] {
  return [e.file, ...(e.values ? chainFiles(e.values).map((c) => c.file) : [])];
}

function sameFiles(a: BucketEntry | null, b: BucketEntry | null): boolean {
  if (a === null || b === null) return a === b;
  const fa = files(a);
  const fb = files(b);
  return fa.length === fb.length && fa.every((f, i) => f === fb[i]);
}
