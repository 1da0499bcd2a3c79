// A run's output files and per-round host counts, opened together: the
// unique-URL files (rotating), the revisit and graph files of runs that ask
// for them, rejects.tsv (resumed at its committed length) and the host
// counter of the round. Receives new URLs from a merge round
// (per URL or in whole blocks from the worker's dispatch), makes the files
// durable before a commit, applies a committed round's host counts to the
// catalog, and closes or abandons everything. Does not decide which URLs are
// new and does not commit the manifest. Also probes an output directory
// for a request with nothing to write (probeOutDir).
// REQUIRES: the run's output directory may be created (run-setup.ts checked it).

import { join } from 'node:path';
import type { Catalog } from '../../../catalog/catalog.js';
import type { Reject } from '../../../input/types.js';
import type { DrumFs } from '../../../io/fs.js';
import { RejectsWriter } from '../../../output/rejects.js';
import { UniqueWriter, type UniquePoint } from '../../../output/unique-writer.js';
import type { RunCounters } from '../../../stats/counters.js';
import type { RunState } from '../../../store/manifest.js';
import type { BlockSink } from '../../workers/dispatch.js';
import { HostCounter } from '../../hosts/host-counter.js';
import { ioError } from '../../../errors.js';
import { probeMkdirp } from '../../../io/mkdirp.js';
import { closeEach } from '../../../io/close-each.js';

/**
 * Refuses an output directory the OS would not let a run make (a path under
 * /proc, no permission) with the DRUM_IO a run gets making it, and leaves
 * nothing made: for a request that has nothing to write into it.
 */
export function probeOutDir(dir: string): void {
  try {
    probeMkdirp(dir);
  } catch (e) {
    throw ioError('cannot create directory', e, dir);
  }
}

export class RunOutputs {
  readonly rejects: RejectsWriter;
  readonly unique: UniqueWriter;
  /** revisit-NNNNN.txt: the URLs due again (runs with --revisit-after), else null. */
  readonly revisit: UniqueWriter | null;
  /** graph-NNNNN.bin: the link graph's docID pairs (runs with --graph), else null. */
  readonly graph: UniqueWriter | null;
  /** Host counts of a round: sealed parts past a few MiB go to a work file, not RAM. */
  private readonly hosts: HostCounter;
  /** Receives one new URL (dispatch on this thread). */
  readonly emit: (buf: Buffer, start: number, end: number) => void;
  /** Receives one URL stored but not emitted (a graph run's new source): counted for its host, not written. */
  readonly emitStored: (buf: Buffer, start: number, end: number) => void;
  /** Receives whole blocks of new URLs (dispatch on the worker). */
  readonly sink: BlockSink;

  constructor(dfs: DrumFs, run: RunState, resume: boolean, workDir: string, fsync: boolean) {
    dfs.mkdirp(run.outDir, fsync);
    const rejects = (this.rejects = RejectsWriter.open(dfs, join(run.outDir, 'rejects.tsv'), { resumeLength: resume ? run.rejectsBytes : 0, fsync }));
    // A file that will not open (EMFILE, a full disk) must not strand the ones opened before it: nobody else can close them.
    const opened: UniqueWriter[] = [];
    const open = (at: UniquePoint, prefix?: string, ext?: string): UniqueWriter => {
      const w = new UniqueWriter(dfs, run.outDir, at, fsync, 1 << 20, prefix, ext);
      opened.push(w);
      return w;
    };
    try {
      this.unique = open(run.unique);
      this.revisit = run.revisit === undefined ? null : open(run.revisit, 'revisit');
      this.graph = run.graph === undefined ? null : open(run.graph, 'graph', 'bin');
    } catch (e) {
      for (const w of opened) {
        try {
          w.close();
        } catch {
          // the open's error is the one to report
        }
      }
      rejects.close().catch(() => undefined); // its descriptor is released before this settles
      throw e;
    }
    const unique = this.unique;
    const hosts = (this.hosts = new HostCounter({ dfs, path: join(workDir, 'hosts.parts') }));
    this.emitStored = (buf, start, end) => hosts.add(buf, start, end);
    this.emit = (buf, start, end) => {
      unique.write(buf, start, end);
      hosts.add(buf, start, end);
    };
    this.sink = {
      urlsPerFile: unique.urlsPerFile,
      room: () => unique.room(),
      block: (b) => {
        unique.writeLines(b.bytes, b.len, b.n);
        const buf = Buffer.from(b.bytes.buffer, b.bytes.byteOffset, b.len);
        let start = 0;
        for (let i = 0; i < b.n; i++) {
          const end = b.ends[i]!;
          hosts.add(buf, start, end);
          start = end + 1;
        }
      },
    };
  }

  /** Counts rejected lines into `c` and appends them to rejects.tsv. */
  countRejects(c: RunCounters, rs: readonly Reject[]): void {
    for (const r of rs) c.rejectsByReason[r.reason] = (c.rejectsByReason[r.reason] ?? 0) + 1;
    c.rejectedLines += rs.length;
    c.linksRead += rs.length;
    this.rejects.addAll(rs);
  }

  /** Makes the files durable; returns the unique files' commit point (revisitAt and graphAt hold the others'). */
  async sync(): Promise<UniquePoint> {
    const point = await this.unique.sync();
    this.revisitAt = (await this.revisit?.sync()) ?? null;
    this.graphAt = (await this.graph?.sync()) ?? null;
    await this.rejects.sync();
    return point;
  }

  /** Applies the committed round's host counts to the catalog (if any) and drops them here. */
  async applyHostCounts(catalog: Catalog | null, runId: string, round: number): Promise<void> {
    const parts = this.hosts.take();
    try {
      if (catalog !== null) await catalog.applyHostCounts(runId, round, parts);
    } catch (e) {
      try {
        parts.close();
      } catch {
        // the apply's error is the one to report; work/ is emptied at the next open
      }
      throw e;
    }
    parts.close();
  }

  /** The revisit files' point as of the last sync(), or null. */
  revisitAt: UniquePoint | null = null;
  /** The graph files' point as of the last sync(), or null. */
  graphAt: UniquePoint | null = null;

  /** Closes every file, each even when one before it fails (a full disk refuses a last flush); throws the first error. */
  async close(): Promise<void> {
    const first = await closeEach([() => this.unique.close(), () => this.revisit?.close(), () => this.graph?.close(), () => this.rejects.close()]);
    if (first !== undefined) throw first;
  }

  /** After a failure: closes what it can without masking the error that stopped the run. */
  async abandon(): Promise<void> {
    try {
      this.hosts.discard();
    } catch {
      // a transient work file; emptied at the next open
    }
    try {
      await this.close();
    } catch {
      // the committed state is what matters; a rerun truncates both files to it
    }
  }
}
