// A power-loss model for the fault seam (DrumOptions.faultHook), shared by
// power-loss.test.ts (beside it; a sample of crash points) and
// scripts/torture.ts (every operation). A kill -9 keeps the page cache, so
// it never shows a missing fsync; a power loss keeps only what was made
// durable. The model watches every mutating operation of a run under one
// directory (the "world": state, outputs, inputs) and, at a crash, builds
// the image the disk would hold after the power came back, POSIX's
// weakest promise:
// - a file's bytes are those of its last fsync (none if never fsynced;
//   those it had when the model started, if it existed then);
// - a directory's names are those of its last fsync (a create, rename or
//   unlink that no fsync of the directory followed is undone).
// That is the kindest loss. `build` with a Tear (power-loss-torn.ts) also
// keeps a seeded choice of what a real disk may keep of the rest: any 4 KiB
// pages written since a file's last fsync, any name change since its
// directory's. Not modelled: a state's LevelDB directories (`catalog/`,
// `writer-lock/`, which sync their own logs through the `level` package,
// not this seam: copied as they are), files a process outside the seam
// wrote (a host-table fold's child, which fsyncs its own: taken as they
// are), an fsync on the thread pool that was issued but had not returned
// (counted as done when issued, since the seam sees it then), and a file's
// identity (dev, inode, times: the image's files are new ones, so a
// verified.cache never vouches for them).
// REQUIRES: the world on one file system (inode numbers and birth times
// identify files); drum opened with fsync on; files written only through
// the seam (a file drum writes some other way reads as empty, as a power
// loss could leave it), and fsynced under the name they were opened by.

import * as fs from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { FsOp } from '../../../src/io/fs.js';
import type { Tear } from './power-loss-torn.js';

/** A state directory's LevelDB directories (src/catalog/, src/store/lock.ts). */
const LEVELDB_DIRS = new Set(['catalog', 'writer-lock']);

/**
 * A file's identity: its inode, how many times the seam saw that inode
 * freed before (inodes are reused), and its birth time (a process outside
 * the seam — LevelDB, a fold's child — frees and reuses inodes unseen).
 */
type FileId = string;
interface Entry {
  id: FileId;
  dir: boolean;
}
/** A torn rebuild: its choices, and where each file is at the loss. */
interface Torn {
  tear: Tear;
  now: Map<FileId, string>;
}

export class PowerLossModel {
  /** The bytes of each file as of its last fsync. */
  private readonly synced = new Map<FileId, Buffer>();
  /** The names of each directory (by path) as of its last fsync. */
  private readonly listings = new Map<string, Map<string, Entry>>();
  /** Times each inode was freed, so a reused inode is another file. */
  private readonly freed = new Map<number, number>();
  /** Files there at the start or created through the seam; any other was written by a process outside it. */
  private readonly known = new Set<FileId>();
  /** Paths opened for writing whose inode is taken at the next operation (the open comes after its hook). */
  private created: string[] = [];
  /** The bytes a file had when an unlink or a rename over it took its name (what a torn rebuild may keep of it). */
  private readonly lastSeen = new Map<FileId, Buffer>();

  /** Starts with everything under `world` durable (what was on the disk before the run). */
  constructor(readonly world: string) {
    this.snapshotTree(world);
  }

  /** Records what operation `op` on `path` makes durable; call it from the fault hook for every operation that goes ahead, not for the one the power loss stops. */
  observe(op: FsOp, path: string): void {
    this.takeCreated();
    if (!this.inWorld(path) || this.inCatalog(path)) return;
    if (op === 'open-write') this.created.push(path);
    else if (op === 'fsync') {
      const st = statOrNull(path);
      if (st === null) return;
      if (st.isDirectory()) this.listings.set(path, this.listing(path));
      else this.synced.set(this.idOf(st), fs.readFileSync(path));
    } else if (op === 'unlink' || op === 'rename') {
      // The inode the name held is freed (an unlink, or a rename over it): a new file may take its number.
      const st = statOrNull(path);
      if (st === null || !st.isFile()) return;
      this.lastSeen.set(this.idOf(st), fs.readFileSync(path));
      this.freed.set(st.ino, (this.freed.get(st.ino) ?? 0) + 1);
    }
  }

  /**
   * Writes what the disk holds after a power loss now into `image`, a new
   * directory: the world's path, once the world itself was moved to
   * `current` (the catalog is copied from there). With `tear`, also
   * whatever of the writes and name changes not made durable it chooses to
   * keep (power-loss-torn.ts); without, none of them.
   */
  build(image: string, current: string, tear: Tear | null = null): void {
    this.takeCreated(current);
    fs.mkdirSync(image, { recursive: true });
    this.buildDir(this.world, image, current, tear === null ? null : { tear, now: this.filesNow(current) });
  }

  /** Where each file the seam knows is at the loss (under `current`), by identity. */
  private filesNow(current: string): Map<FileId, string> {
    const at = new Map<FileId, string>();
    const walk = (d: string): void => {
      for (const [name, e] of this.listing(d)) {
        const p = join(d, name);
        if (e.dir && !LEVELDB_DIRS.has(name)) walk(p);
        else if (!e.dir) at.set(e.id, p);
      }
    };
    walk(current);
    return at;
  }

  private takeCreated(root = this.world): void {
    for (const p of this.created) {
      const st = statOrNull(join(root, relative(this.world, p)));
      if (st !== null) this.known.add(this.idOf(st));
    }
    this.created = [];
  }

  private buildDir(dir: string, to: string, current: string, torn: Torn | null): void {
    const durable = this.listings.get(dir) ?? new Map<string, Entry>();
    const names = torn === null ? durable : torn.tear.names(durable, this.listingNow(current, dir));
    for (const [name, e] of names) {
      const src = join(dir, name);
      const dst = join(to, name);
      // A file a process outside the seam wrote is taken as it is (addUnseen), not as the empty file the seam never saw fsynced, nor torn.
      if (!e.dir && !this.known.has(e.id)) continue;
      if (this.inCatalog(src)) {
        const now = join(current, relative(this.world, src));
        if (fs.existsSync(now)) fs.cpSync(now, dst, { recursive: true });
      } else if (e.dir) {
        fs.mkdirSync(dst);
        this.buildDir(src, dst, current, torn);
      } else {
        fs.writeFileSync(dst, this.bytesOf(e.id, torn));
      }
    }
    this.addUnseen(dir, to, current);
  }

  /** A file's bytes after the loss: those of its last fsync, torn by what came after when `torn`. */
  private bytesOf(id: FileId, torn: Torn | null): Buffer {
    const synced = this.synced.get(id) ?? Buffer.alloc(0);
    if (torn === null) return synced;
    const at = torn.now.get(id);
    const now = at !== undefined ? fs.readFileSync(at) : this.lastSeen.get(id);
    return now === undefined ? synced : torn.tear.bytes(synced, now);
  }

  /** The names `dir` of the world holds at the loss (read under `current`). */
  private listingNow(current: string, dir: string): Map<string, Entry> {
    const now = join(current, relative(this.world, dir));
    return statOrNull(now)?.isDirectory() === true ? this.listing(now) : new Map<string, Entry>();
  }

  /** Files of `dir` a process outside the seam wrote (a host-table fold's child, which fsyncs its own): taken as they are. */
  private addUnseen(dir: string, to: string, current: string): void {
    const now = join(current, relative(this.world, dir));
    if (!fs.existsSync(to) || statOrNull(now)?.isDirectory() !== true) return;
    for (const name of fs.readdirSync(now)) {
      const st = statOrNull(join(now, name));
      if (st === null || !st.isFile() || this.known.has(this.idOf(st)) || fs.existsSync(join(to, name))) continue;
      fs.copyFileSync(join(now, name), join(to, name));
    }
  }

  private snapshotTree(dir: string): void {
    const l = this.listing(dir);
    this.listings.set(dir, l);
    for (const [name, e] of l) {
      const p = join(dir, name);
      if (e.dir) this.snapshotTree(p);
      else {
        this.synced.set(e.id, fs.readFileSync(p));
        this.known.add(e.id);
      }
    }
  }

  private listing(dir: string): Map<string, Entry> {
    const l = new Map<string, Entry>();
    for (const name of fs.readdirSync(dir).sort()) {
      const st = statOrNull(join(dir, name));
      if (st !== null) l.set(name, { id: this.idOf(st), dir: st.isDirectory() });
    }
    return l;
  }

  private idOf(st: fs.Stats): FileId {
    return `${st.ino}.${this.freed.get(st.ino) ?? 0}.${st.birthtimeMs}`;
  }

  private inWorld(path: string): boolean {
    return !relative(this.world, path).startsWith('..');
  }

  /** Under a LevelDB directory of a state (its catalog, its writer lock), whose files do not pass the seam. */
  private inCatalog(path: string): boolean {
    return relative(this.world, path).split(sep).some((part) => LEVELDB_DIRS.has(part));
  }
}

function statOrNull(path: string): fs.Stats | null {
  try {
    return fs.lstatSync(path);
  } catch {
    return null;
  }
}
