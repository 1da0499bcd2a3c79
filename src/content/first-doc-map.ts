// A content store map on the generic DRUM core: 64-bit keys (exact payload
// keys, or MinHash-LSH band keys) -> the docID of the earliest document that
// had the key. Its buckets are the core's sorted key files with a values
// file of one u32 docID per key beside each (`<content>/<name>/
// bNNNN-gNNNNNN.keys` and `.vals`, docs/file-format.md). A round is DRUM's
// check+update with values: each distinct key of the round goes to the core
// once (RoundKeys: an in-round repeat takes its first arrival's ordinal),
// carrying the docID of its first arrival; the merge fills a new key's value
// with it (`fill`) and hands every key's value back (`out`), so afterwards
// docOf(ordinal) is the key's earliest docID: a stored one, or the round's
// first arrival. The map never changes a stored value.
// Does not commit: merge() writes the next generation's files and returns
// the map's files after it; the content store names them in its manifest
// and then calls committed(). Does not decide which keys a document has.
// REQUIRES: add() only between reset()s and before merge(); docIDs < 2^32;
// the content store's writer lock.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { AuxLog } from '../bucket/aux-log.js';
import { PendingBuckets } from '../bucket/pending.js';
import { DrumCore, type CoreCounters, type WrittenBucket } from '../engine/core/drum-core.js';
import { RoundKeys } from '../engine/core/round-keys.js';
import type { BucketFiles } from '../engine/core/sort-stage.js';
import type { SortArea } from '../engine/core/sort-area.js';
import { DrumError } from '../errors.js';
import type { DrumFs } from '../io/fs.js';
import { KeyReader } from '../store/keys/key-reader.js';
import type { BucketEntry } from '../store/manifest.js';
import { ValueReader } from '../store/values/value-io.js';
import type { MapFiles } from './content-manifest.js';

/** A value is one docID: u32 words per value, and bytes. */
export const DOC_VALUE_WORDS = 1;
export const DOC_VALUE_BYTES = 4 * DOC_VALUE_WORDS;
/** The content store's work directory (spills, aux log, value events: transient). */
export const WORK_DIR = 'work';
/** RAM of a map's pending bucket buffers (keys beyond spill to work files). */
export const PENDING_BYTES = 2 << 20;
/**
 * The round's key table is filled to at most this share before it doubles:
 * a round of 65,536 documents' 25 band keys (1.6 M) fits 2^21 slots (24 MiB),
 * where a table at most half full would take 2^22 (48 MiB).
 */
export const ROUND_KEYS_MAX_LOAD = 0.8;
/** Bytes of a pending entry: hi, lo, ordinal. */
const PENDING_ENTRY_BYTES = 4 + 4 + 4;
/** The aux log's buffer (each key's payload is empty: 3 bytes a record). */
const AUX_BUFFER_BYTES = 256 << 10;

/** Name, relative to the content directory, of map `name`'s bucket b file written by generation g. */
export function mapFileName(name: string, b: number, g: number, ext: 'keys' | 'vals'): string {
  return `${name}/b${String(b).padStart(4, '0')}-g${String(g).padStart(6, '0')}.${ext}`;
}

/** Every file name a map's committed state names. */
export function mapFileNames(m: MapFiles): string[] {
  const out: string[] = [];
  for (const e of m.files) {
    if (e === null) continue;
    out.push(e.file);
    if (e.values !== undefined) out.push(e.values.file);
  }
  return out;
}

export class FirstDocMap {
  private readonly core: DrumCore;
  private readonly keys = new RoundKeys(ROUND_KEYS_MAX_LOAD);
  /** By ordinal: the docID of its first arrival before the merge; its key's earliest docID after. */
  private doc = new Uint32Array(1 << 12);
  private readonly counters: CoreCounters = { diskLookups: 0, inRoundRepeats: 0, diskHits: 0, duplicateUrls: 0, storeHits: 0 };
  private static readonly NO_PAYLOAD = new Uint8Array(0);

  /**
   * Opens map `name` of the content directory `dir` at its committed `files`
   * (each named file checked present, of its recorded size); `pendingBytes`
   * of RAM for its pending buckets.
   */
  constructor(private readonly dfs: DrumFs, private readonly dir: string, readonly name: string, public files: MapFiles, area: SortArea, pendingBytes = PENDING_BYTES) {
    checkNamedFiles(dir, files);
    const work = join(dir, WORK_DIR, name);
    dfs.mkdirp(work);
    dfs.mkdirp(join(dir, name));
    const bits = Math.log2(files.buckets);
    if (!Number.isInteger(bits) || bits < 0 || bits > 16) throw new DrumError('DRUM_CORRUPT_FILE', `content map ${name}: ${files.buckets} buckets is not a power of two up to 65,536`);
    const entries = Math.max(1, Math.floor(pendingBytes / (PENDING_ENTRY_BYTES * files.buckets)));
    const pending = new PendingBuckets(dfs, work, bits, entries);
    this.core = new DrumCore(dfs, pending, new AuxLog(dfs, join(work, 'aux.dat'), AUX_BUFFER_BYTES), area, DOC_VALUE_WORDS, join(work, 'values-events.dat'));
  }

  /** Makes room for a round of up to `keys` distinct keys at once (no doublings). REQUIRES: an empty round. */
  reserve(keys: number): void {
    this.keys.reserve(keys);
    if (this.doc.length < keys) this.doc = new Uint32Array(keys);
  }

  /** The round's ordinal of key (hi, lo): its first arrival's; a first arrival carries `doc`, its docID if the key is new to the map. */
  add(hi: number, lo: number, doc: number): number {
    let o = this.keys.find(hi, lo);
    if (o >= 0) return o;
    o = this.core.add(hi, lo, FirstDocMap.NO_PAYLOAD, 0, 0);
    this.keys.add(hi, lo, o);
    if (o >= this.doc.length) {
      const d = new Uint32Array(2 * this.doc.length);
      d.set(this.doc);
      this.doc = d;
    }
    this.doc[o] = doc;
    return o;
  }

  /** After merge(): the earliest docID of the key of ordinal o. */
  docOf(o: number): number {
    return this.doc[o]!;
  }

  /** Distinct keys added this round. */
  get records(): number {
    return this.core.records;
  }

  /** Merges the round's keys into the map, writing generation `gen`'s files of every touched bucket; the map's files after it (to commit). */
  async merge(gen: number, fsync: boolean): Promise<MapFiles> {
    const doc = this.doc;
    const { dfs, dir, name } = this;
    const entry = (b: number): BucketEntry | null => this.files.files[b] ?? null;
    const files: BucketFiles = {
      openReader: (b, buffer) => {
        const e = entry(b);
        return e === null ? null : KeyReader.open(dfs, join(dir, e.file), { bucket: b, keys: e.keys }, e.bytes, buffer);
      },
      outputPath: (b) => join(dir, mapFileName(name, b, gen, 'keys')),
      keysIn: (b) => entry(b)?.keys ?? 0,
    };
    const v = await this.core.merge('check+update', {
      files, fsync, counters: this.counters, onHit: null, keySink: null,
      values: {
        files: {
          openValues: (b, buffers) => {
            const e = entry(b);
            if (e === null || e.values === undefined) return null;
            return ValueReader.open(dfs, join(dir, e.values.file), { bucket: b, count: e.keys, valueBytes: DOC_VALUE_BYTES }, e.values.bytes, buffers?.chunk);
          },
          valuesOutputPath: (b) => join(dir, mapFileName(name, b, gen, 'vals')),
        },
        fill: (o, _rank, v, at) => void (v[at] = doc[o]!),
        update: null,
        out: (o, v, at) => void (doc[o] = v[at]!),
      },
    });
    return this.named(v.written, gen);
  }

  /** The map's files after a round that wrote `written` (generation gen). */
  private named(written: Map<number, WrittenBucket>, gen: number): MapFiles {
    const files = this.files.files.slice();
    for (const [b, w] of written) {
      const vals = w.values === undefined ? files[b]?.values : { file: mapFileName(this.name, b, gen, 'vals'), bytes: w.values.file.bytes, crc: w.values.file.crc };
      files[b] = { file: mapFileName(this.name, b, gen, 'keys'), keys: w.file.keys, bytes: w.file.bytes, crc: w.file.crc, ...(vals !== undefined ? { values: vals } : {}) };
    }
    return { buckets: this.files.buckets, files };
  }

  /** `next` is committed: it becomes the map's state, and the files only the old state named are deleted. Empties the round. */
  committed(next: MapFiles): void {
    const keep = new Set(mapFileNames(next));
    const old = mapFileNames(this.files);
    this.files = next;
    this.reset();
    for (const f of old) if (!keep.has(f)) this.dfs.unlink(join(this.dir, f));
  }

  /** Drops the round's keys (after committed(), or when the round failed). */
  reset(): void {
    this.core.reset();
    this.keys.clear();
  }
}

/** DRUM_CORRUPT_FILE unless every file a map's state names is there with its recorded size (verify reads them whole). */
function checkNamedFiles(dir: string, m: MapFiles): void {
  for (const e of m.files) {
    if (e === null) continue;
    if (e.keys > 0 && e.values === undefined) throw new DrumError('DRUM_CORRUPT_FILE', `${join(dir, e.file)}: has keys but the content manifest names no values file`, { file: join(dir, e.file) });
    for (const [file, bytes] of [[e.file, e.bytes], ...(e.values !== undefined ? [[e.values.file, e.values.bytes] as const] : [])] as const) {
      const path = join(dir, file);
      let size: number;
      try {
        size = fs.statSync(path).size;
      } catch {
        throw new DrumError('DRUM_CORRUPT_FILE', `${path}: missing (named by the content manifest)`, { file: path });
      }
      if (size !== bytes) throw new DrumError('DRUM_CORRUPT_FILE', `${path}: ${size} bytes, the content manifest says ${bytes}`, { file: path });
    }
  }
}
