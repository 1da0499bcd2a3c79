// The torn variant of the power-loss model (power-loss.ts): what a real
// disk may keep of what was NOT made durable when the power went. A file
// system like ext4 (data=ordered) or xfs writes dirty pages back when it
// likes and commits metadata in its own time, so after a power loss:
// - a file holds the bytes of its last fsync, and over them any 4 KiB pages
//   of the writes since (a random subset, or a prefix of them), its length
//   that of its last fsync, its length at the loss, or a page boundary in
//   between; a page inside that length that no persisted write reached
//   reads as the fsynced bytes before the fsynced length and, past it, as
//   zeros (allocated, never written: the xfs "null bytes" case) or, in
//   some files, as junk (a block of a deleted file, as ext4 data=writeback
//   may show);
// - each change to a directory since its last fsync (a create, an unlink,
//   a rename) persists or not, on its own; the two names of one rename go
//   together (the decision is taken per file moved, so a renamed file is
//   under its old name or its new one, never both or neither).
// Every choice comes from one seeded generator, so a trial is replayable.
// Not modelled: a file's length or pages of a state between its last fsync
// and the loss (only those two states, mixed by page), a name a later change
// in the same run undid (a `*.tmp` renamed away is never seen under its
// temporary name), and writes that reach the disk out of their order within
// one page.
// REQUIRES: rng() uniform in [0, 1); the caller passes each directory's
// names as of its last fsync and at the loss, by the same file identities.

import { rng as seeded } from '../harness.js';

export const PAGE = 4096;

/** A directory entry: the file a name points to (its identity: inode, reuse count, birth time). */
export interface TornEntry {
  id: string;
  dir: boolean;
}

export class Tear {
  private readonly rng: () => number;
  /** One decision per file moved, created or unlinked: do its name changes persist? */
  private readonly moved = new Map<string, boolean>();
  /** What was chosen, for a trial's report: files torn, names kept and dropped. */
  readonly tally = { files: 0, pagesKept: 0, pagesDropped: 0, namesKept: 0, namesDropped: 0 };

  constructor(readonly seed: number) {
    this.rng = seeded(seed);
  }

  /** The names a directory holds after the loss: its durable ones, with each later change persisted or not. */
  names(durable: ReadonlyMap<string, TornEntry>, now: ReadonlyMap<string, TornEntry>): Map<string, TornEntry> {
    const out = new Map<string, TornEntry>();
    const all = [...new Set([...durable.keys(), ...now.keys()])].sort();
    for (const name of all) {
      const was = durable.get(name);
      const is = now.get(name);
      if (was?.id === is?.id) {
        if (was !== undefined) out.set(name, was);
        continue;
      }
      // The file placed under the name (a create, a rename onto it) decides; an unlink, the file it removed.
      const keep = this.decide((is ?? was)!.id);
      const e = keep ? is : was;
      if (e !== undefined) out.set(name, e);
    }
    return out;
  }

  /** The bytes a file holds after the loss, from those of its last fsync and those it had at the loss. */
  bytes(synced: Buffer, now: Buffer): Buffer {
    if (synced.equals(now)) return synced;
    this.tally.files++;
    const pages = Math.ceil(Math.max(synced.length, now.length) / PAGE);
    const dirty: number[] = [];
    for (let p = 0; p < pages; p++) if (!pageOf(synced, p).equals(pageOf(now, p))) dirty.push(p);
    const kept = this.keptPages(dirty);
    const len = this.length(synced.length, now.length);
    const out = Buffer.alloc(len);
    if (len > synced.length && this.rng() < 0.3) this.junk(out.subarray(synced.length));
    synced.copy(out, 0, 0, Math.min(len, synced.length));
    for (const p of kept) {
      if (p * PAGE >= len) continue;
      const page = pageOf(now, p);
      page.copy(out, p * PAGE, 0, Math.min(PAGE, len - p * PAGE));
      // A page the file's end cuts short reads as zeros past the end the file had.
      if (p * PAGE + page.length < Math.min(len, (p + 1) * PAGE)) out.fill(0, p * PAGE + page.length, Math.min(len, (p + 1) * PAGE));
    }
    return out;
  }

  /** Fills `b` with seeded junk bytes. */
  private junk(b: Buffer): void {
    let x = (this.rng() * 0x100000000) >>> 0 || 1;
    for (let i = 0; i < b.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      b[i] = x & 0xff;
    }
  }

  private decide(id: string): boolean {
    let keep = this.moved.get(id);
    if (keep === undefined) {
      keep = this.rng() < 0.5;
      this.moved.set(id, keep);
    }
    if (keep) this.tally.namesKept++;
    else this.tally.namesDropped++;
    return keep;
  }

  /** Which of the pages written since the last fsync reached the disk: none, all, a prefix, or any subset. */
  private keptPages(dirty: number[]): Set<number> {
    const r = this.rng();
    let kept: number[];
    if (r < 0.15) kept = [];
    else if (r < 0.3) kept = dirty;
    else if (r < 0.6) kept = dirty.slice(0, Math.floor(this.rng() * (dirty.length + 1)));
    else kept = dirty.filter(() => this.rng() < 0.5);
    this.tally.pagesKept += kept.length;
    this.tally.pagesDropped += dirty.length - kept.length;
    return new Set(kept);
  }

  /** The file's length after the loss: the fsynced one, the one at the loss, or (when it grew) a page boundary between. */
  private length(synced: number, now: number): number {
    const r = this.rng();
    if (r < 0.35) return synced;
    if (r < 0.7 || now <= synced) return now;
    const lo = Math.ceil(synced / PAGE);
    const hi = Math.floor(now / PAGE);
    return hi <= lo ? now : (lo + Math.floor(this.rng() * (hi - lo + 1))) * PAGE;
  }
}

/** Page `p` of `b` (shorter at its end, empty past it). */
function pageOf(b: Buffer, p: number): Buffer {
  return b.subarray(Math.min(b.length, p * PAGE), Math.min(b.length, (p + 1) * PAGE));
}
