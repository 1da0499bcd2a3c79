// The example crawler's durable frontier: two append-only files in a
// directory of their own. `queued.log` holds every URL the crawler decided
// to fetch, one per line, appended and fdatasync'ed inside drum.add()'s
// beforeCommit hook, so it is on disk before drum commits the URL as seen;
// the appends of one round share one fdatasync. `done.log` holds every URL
// whose page was fetched and whose links drum has stored, appended without
// an fsync of its own (a line a power loss takes back costs one refetch;
// close() syncs it). Opening reads both, cuts a torn last line (a kill -9
// in the middle of an append: that append never returned, so drum did not
// commit its URLs), and yields the URLs queued and not done, in the order
// they were queued: what a restarted crawl fetches first.
// Does not fetch, does not decide what is new (drum does), does not compact
// its files, and keeps the queued URLs in RAM: a frontier for billions of
// URLs would keep them on disk.
// REQUIRES: one process at a time per directory (the crawler takes drum's
// lock on its state directory before it opens its frontier).

import * as fs from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const fdatasync = promisify(fs.fdatasync);

export class Frontier {
  /** Every URL in queued.log: what was queued is never queued again. */
  private readonly queued: Set<string>;
  private syncing: Promise<void> | null = null;
  private again: Promise<void> | null = null;
  /** A failed fdatasync: what was written may not be on disk, so every later queue() fails too. */
  private broken: unknown = null;

  private constructor(
    readonly dir: string,
    private readonly queuedFd: number,
    private readonly doneFd: number,
    queued: Set<string>,
    /** URLs queued by earlier crawls and not done, in queue order. */
    readonly pending: readonly string[],
    /** Pages done by earlier crawls. */
    readonly doneBefore: number,
  ) {
    this.queued = queued;
  }

  /** Opens (or creates) the frontier in `dir`, repairing a torn last line of either file. */
  static open(dir: string): Frontier {
    fs.mkdirSync(dir, { recursive: true });
    const queuedPath = join(dir, 'queued.log');
    const donePath = join(dir, 'done.log');
    const created = !fs.existsSync(queuedPath) || !fs.existsSync(donePath);
    const queuedFd = fs.openSync(queuedPath, 'a+');
    const doneFd = fs.openSync(donePath, 'a+');
    if (created) syncDir(dir); // the new files' names are durable before anything relies on them
    const queued = new Set(readLines(queuedFd));
    const done = new Set(readLines(doneFd));
    const pending = [...queued].filter((u) => !done.has(u));
    return new Frontier(dir, queuedFd, doneFd, queued, pending, done.size);
  }

  /** The URLs ever queued, in queue order. */
  queuedUrls(): Iterable<string> {
    return this.queued.values();
  }

  /** Those of `urls` never queued (drum calls a URL new again when a crash cut its round off after the hook). */
  fresh(urls: readonly string[]): string[] {
    return urls.filter((u) => !this.queued.has(u));
  }

  /** Appends `urls` to queued.log and resolves once they are on disk. Calls made together share one fdatasync. */
  queue(urls: readonly string[]): Promise<void> {
    if (this.broken !== null) return Promise.reject(this.broken);
    if (urls.length === 0) return Promise.resolve();
    for (const u of urls) this.queued.add(u);
    writeAll(this.queuedFd, urls.map((u) => `${u}\n`).join(''));
    return this.sync();
  }

  /** Records a page as fetched, its links stored: a restarted crawl does not fetch it again. */
  done(url: string): void {
    writeAll(this.doneFd, `${url}\n`);
  }

  async close(): Promise<void> {
    await this.sync();
    await fdatasync(this.doneFd);
    fs.closeSync(this.queuedFd);
    fs.closeSync(this.doneFd);
  }

  /** One fdatasync of queued.log covering every append made before it started; appends made during it share the next. */
  private sync(): Promise<void> {
    if (this.syncing === null) {
      this.syncing = fdatasync(this.queuedFd).catch((e: unknown) => {
        this.broken = e;
        throw e;
      }).finally(() => (this.syncing = null));
      return this.syncing;
    }
    this.again ??= this.syncing.then(() => {
      this.again = null;
      return this.sync();
    });
    return this.again;
  }
}

/** The file's whole lines; a torn last line (no newline) is cut off the file first. */
function readLines(fd: number): string[] {
  const text = fs.readFileSync(fd, 'utf8');
  const end = text.lastIndexOf('\n') + 1;
  if (end < text.length) {
    fs.ftruncateSync(fd, Buffer.byteLength(text.slice(0, end)));
    fs.fdatasyncSync(fd);
  }
  return text.slice(0, end).split('\n').filter((l) => l !== '');
}

function writeAll(fd: number, text: string): void {
  const b = Buffer.from(text);
  for (let at = 0; at < b.length;) at += fs.writeSync(fd, b, at);
}

function syncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
